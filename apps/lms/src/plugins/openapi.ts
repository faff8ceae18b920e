import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { PARTNER_EVENT_TYPES, type PartnerEventType, partnerEventSchemaId } from '@lms/contracts';
import { DOCS_UI_CSP, tidyOpenApiDocument } from '@lms/server-kit';
import fp from 'fastify-plugin';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';

/** `enrollment.created` → `enrollmentCreated`: the operationId of the event's webhook. */
const camel = (type: PartnerEventType) => type.replace(/\.([a-z])/g, (_m, c: string) => c.toUpperCase());

/**
 * The partner events, one webhook each (OpenAPI 3.1 `webhooks`): what the LMS POSTs to a partner's
 * endpoint (docs/api.md, "Calls from the LMS to a partner"), its body the event's schema in
 * packages/contracts (PartnerEventBody), so that a partner can generate its types.
 */
function partnerEventWebhooks() {
  const header = (name: string, description: string) => ({
    in: 'header' as const,
    name,
    required: true,
    schema: { type: 'string' as const },
    description,
  });
  return Object.fromEntries(
    PARTNER_EVENT_TYPES.map((type) => [
      type,
      {
        post: {
          operationId: camel(type),
          summary: `The partner event ${type}`,
          description:
            'Sent to the endpoints of the partners of whom the member holds an identity, signed (Standard Webhooks), ' +
            'at least once and in no guaranteed order: deduplicate by `webhook-id`, order by `data.sequence` or `timestamp`.',
          tags: ['partner events'],
          parameters: [
            header('webhook-id', 'The event id (= data.eventId): deduplicate by it.'),
            header('webhook-timestamp', 'When this attempt was signed, in Unix seconds.'),
            header('webhook-signature', 'One or more `v1,<base64 HMAC-SHA256>` separated by spaces (two while a secret is rotated).'),
          ],
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { $ref: `#/components/schemas/${partnerEventSchemaId(type)}` } } },
          },
          responses: {
            '2XX': { description: 'Received: the delivery is done.' },
            '410': { description: 'Gone: the endpoint is disabled and its deliveries stop.' },
            default: { description: 'Anything else: tried again later, at least as late as a `Retry-After`.' },
          },
        },
      },
    ]),
  );
}

/** The routes that write the whole OpenAPI document. */
const DOCUMENTS = new Set(['/docs/json', '/docs/yaml']);

/**
 * OpenAPI 3.1 generated from the routes' zod schemas (packages/contracts): the document at
 * /docs/json, a docs UI at /docs. Register before the routes so every route is collected.
 */
export default fp(
  async (app) => {
    await app.register(swagger, {
      openapi: {
        openapi: '3.1.0',
        info: {
          title: 'LMS service API',
          version: '1.0.0',
          description:
            // The limit is the deployment's (RATE_LIMIT_PER_MINUTE), so the document says the one in force.
            'Course catalog, course detail, bundles, progress metrics, API keys, partner single sign-on. ' +
            'Errors are JSON `{success:false, error}` unless a route says otherwise.\n\n' +
            '**Rate limit.** Requests authenticated by an API key to the catalog, course detail, bundle and ' +
            'progress (`/api/lms-progress`) endpoints are limited to ' +
            `${app.config.RATE_LIMIT_PER_MINUTE} per key in any sliding 60-second window ` +
            "(RATE_LIMIT_PER_MINUTE; keyed by the first 16 hex characters of the key's SHA-256). Refused requests do not count. " +
            'Over the limit: 429 `{success:false, error:"Rate limit exceeded"}` with `Retry-After` (whole seconds ' +
            'until a request is allowed again). Every API-key response of those endpoints carries the fields of ' +
            'draft-ietf-httpapi-ratelimit-headers-11: `RateLimit-Policy: "default";q=' +
            `${app.config.RATE_LIMIT_PER_MINUTE};w=60\` and ` +
            '`RateLimit: "default";r=<remaining>;t=<seconds until one more request is allowed>`. With several ' +
            'instances the window is shared through Redis; if Redis is unreachable each instance limits on its own.\n\n' +
            `**Session budget.** A signed-in person may make ${app.config.SESSION_RATE_LIMIT_PER_MINUTE} requests in any sliding ` +
            'minute to the reads that cost most: the course list, the bundles and the progress metrics ' +
            '(SESSION_RATE_LIMIT_PER_MINUTE), with the same 429, Retry-After and RateLimit fields under the policy name ' +
            '`session`. The API documents themselves (`/docs/json`, `/docs/yaml`) take ' +
            `${app.config.DOCS_RATE_LIMIT_PER_MINUTE} requests per client IP and minute (policy \`address\`).\n\n` +
            '**Failed credentials.** Unknown, malformed or revoked API keys, session cookies that match no session ' +
            'and refused SSO tokens count per client IP: past FAILED_AUTH_PER_MINUTE (default 300) in any sliding ' +
            'minute, every request of that IP that carries a credential gets 429 `{success:false, error}` with ' +
            '`Retry-After`, before anything is looked up. Successful requests never count.\n\n' +
            '**Input limits.** Text fields and query parameters must not contain the NUL character nor an unpaired ' +
            'UTF-16 surrogate (rules not repeated as a pattern on each field); ids and ' +
            '`institutionId` are 1 to 2147483647; date-times lie between the years 1000 and 9999 (UTC); a JSON body ' +
            'nests at most 32 levels. Anything else is a 400 naming the field.\n\n' +
            '**Authoring.** Courses are written (`tags: authoring`) by their owner teacher, the admins of their ' +
            'institution and super_admins by session, and by bound partners through the gateway; every write is ' +
            'recorded in the course history.\n\n' +
            '**Credits.** A member reads their own credit record (`GET /api/learning/credits`, session only); a partner, ' +
            "through the gateway, reads its own members' records (`GET /api/partner/credits`, `tags: partners`) and their " +
            'credit evidence: minutes, scores, evaluation, accreditation (`GET /api/partner/evidence`).\n\n' +
            '**Partners.** Before creating a course, a partner reads the institutions bound to it and their teachers ' +
            '(`GET /api/partner/teachers`, `tags: partners`): the `institutionId` and `teacherId` course creation takes.\n\n' +
            '**Cross-site requests.** Session-authenticated requests that change data must send the ' +
            "`x-requested-with` header and, if they send `Origin`, come from this service's origin.",
        },
        webhooks: partnerEventWebhooks(),
        servers: [
          // Where this deployment is reached (PUBLIC_URL): "Try it out" calls this server, no placeholder.
          { url: app.config.PUBLIC_URL.replace(/\/$/, ''), description: 'this LMS (PUBLIC_URL)' },
        ],
        components: {
          securitySchemes: {
            apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'A teacher API key, `lms_key_...`' },
            session: { type: 'apiKey', in: 'cookie', name: app.sessionCookieName, description: 'Browser session after SSO' },
            partnerBearer: {
              type: 'http',
              scheme: 'bearer',
              bearerFormat: 'JWT',
              description: "A partner's course-creation token, forwarded by the gateway (the LMS takes it only from the gateway)",
            },
          },
        },
      },
      transform: jsonSchemaTransform,
      transformObject: (document) => tidyOpenApiDocument(jsonSchemaTransformObject(document)),
    });
    // Its own policy (nosniff is on every answer, see app.ts): the UI runs only its own files. The
    // documents are public and a few milliseconds of CPU each to write: limited per client IP.
    await app.register(swaggerUi, {
      routePrefix: '/docs',
      staticCSP: DOCS_UI_CSP,
      uiHooks: {
        onRequest: async (request, reply) => {
          if (DOCUMENTS.has(request.routeOptions.url ?? '')) await app.limitPerAddress(request, reply);
        },
      },
    });
  },
  { name: 'openapi', dependencies: ['auth', 'rate-limit'] },
);
