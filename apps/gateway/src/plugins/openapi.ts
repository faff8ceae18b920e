import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { DOCS_UI_CSP, tidyOpenApiDocument } from '@lms/server-kit';
import fp from 'fastify-plugin';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';

export interface OpenApiPluginOptions {
  publicUrl: string;
}

/**
 * The gateway's OpenAPI 3.1 document at /docs/json and a docs UI at /docs, generated from the
 * routes' zod schemas (packages/contracts). Register before the routes so every route is collected.
 */
export default fp<OpenApiPluginOptions>(
  async (app, options) => {
    await app.register(swagger, {
      openapi: {
        openapi: '3.1.0',
        info: {
          title: 'LMS gateway API',
          version: '1.0.0',
          description:
            "The edge partners call: SSO entry (`/sso/verify`), course creation and authoring, their members' credit " +
            'records (`GET /api/partner/credits`) and evidence (`GET /api/partner/evidence`), their institutions and teachers (`GET /api/partner/teachers`). ' +
            'Partners are registered by the operator with their ' +
            'issuer (`iss`), the IP ranges their backends call from, and their LMS host. A JSON body nests at most ' +
            '32 levels (deeper: 400 naming the top-level field); otherwise it is forwarded to the LMS exactly as sent, ' +
            'and the LMS judges it.',
        },
        servers: [
          // Where this gateway is reached (its PUBLIC_URL): "Try it out" calls this server, no placeholder.
          { url: options.publicUrl.replace(/\/$/, ''), description: 'this gateway (PUBLIC_URL)' },
        ],
        tags: [
          { name: 'sso', description: 'Partner single sign-on' },
          {
            name: 'partners',
            description:
              "A partner's own members' credit records (`GET /api/partner/credits`) and evidence (`GET /api/partner/evidence`), its institutions and their teachers (`GET /api/partner/teachers`)",
          },
        ],
      },
      transform: jsonSchemaTransform,
      transformObject: (document) => tidyOpenApiDocument(jsonSchemaTransformObject(document)),
    });
    // Its own policy (nosniff is on every answer, see app.ts): the UI runs only its own files.
    await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: DOCS_UI_CSP });
  },
  { name: 'openapi' },
);
