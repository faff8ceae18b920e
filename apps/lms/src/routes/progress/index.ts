import { ErrorResponse, PROGRESS_METRIC_DEFINITIONS, ProgressResponse, STAFF_ROLES } from '@lms/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { computeProgressMetrics } from '../../domain/progress.js';

/** The route's description; the API-key limit is the deployment's (RATE_LIMIT_PER_MINUTE). */
const descriptionFor = (perMinute: number) =>
  [
    'Platform-wide and per-category learner progress, enrollment and financial metrics, for teacher and admin dashboards.',
    '',
    'Who may call: a teacher (or admin) API key in `x-api-key`, or a session cookie of a teacher, admin or super_admin (200). ',
    "A student gets 403; missing or invalid credentials get 401. An API-key call counts against that key's sliding " +
      `window like every other API-key call (${perMinute} a minute, RATE_LIMIT_PER_MINUTE, shared with the catalog endpoints)` +
      ': past it, 429 with ' +
      "`Retry-After`. A session counts against its person's budget of costly reads (SESSION_RATE_LIMIT_PER_MINUTE).",
    '',
    '"Trailing 30 days" is the window (now − 30 days, now]: exactly 30 days ago is outside.',
    '',
    'Definitions (overall: over every course; perCategory: one item per category, also categories without courses (zeros), ' +
      "over that category's courses):",
    ...Object.entries(PROGRESS_METRIC_DEFINITIONS).map(([name, text]) => `- \`${name}\`: ${text}`),
    '',
    "Purchases count toward the category of what was bought: a course purchase toward its course's category, a bundle " +
      "purchase (one purchase with its own amount) toward the bundle's category. Overall counts each purchase once; " +
      'time of a purchase in the window is its payment time (`paidAt`), of a certificate its issue time.',
  ].join('\n');

/** GET /api/lms-progress: the metrics of docs/architecture.md, "Progress metrics" (their definitions: @lms/contracts PROGRESS_METRIC_DEFINITIONS). */
const progressRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/api/lms-progress',
    {
      config: { auth: STAFF_ROLES, rateLimited: true, sessionLimited: true },
      schema: {
        operationId: 'getProgressMetrics',
        summary: 'Progress metrics, overall and per category',
        description: descriptionFor(app.config.RATE_LIMIT_PER_MINUTE),
        tags: ['progress'],
        security: [{ apiKey: [] }, { session: [] }],
        response: {
          200: ProgressResponse,
          401: ErrorResponse,
          403: ErrorResponse,
          429: ErrorResponse.describe(
            "The API key's window is spent (`Rate limit exceeded`), or too many failed credentials from the client IP; with Retry-After.",
          ),
          500: ErrorResponse,
        },
      },
    },
    async () => {
      const data = await computeProgressMetrics(app.db, app.clock(), { currency: app.config.PLATFORM_CURRENCY });
      return { success: true as const, data };
    },
  );
};

export default progressRoutes;
