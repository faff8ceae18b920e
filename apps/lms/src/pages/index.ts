import type { FastifyError } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { AppError, UnavailableError } from '../errors.js';
import { retryLaterError } from '../plugins/error-handler.js';
import apiKeysPage from './api-keys/index.js';
import assetRoutes from './assets.js';
import bundlesPage from './bundles/index.js';
import catalogPage from './catalog/index.js';
import coursePage from './course/index.js';
import dashboardPage from './dashboard/index.js';
import { pageContext } from './i18n/index.js';
import languageRoute from './language.js';
import learningForms from './learning/forms.js';
import learnersPages from './learning/learners.js';
import reportPages from './evidence/reports.js';
import trailPages from './evidence/trail.js';
import statementPages from './evidence/statement.js';
import certificateAdminForms from './learning/certificate-admin.js';
import transfersPage, { confirmTransferPage } from './learning/transfers.js';
import schemesPage from './schemes/index.js';
import webhooksPage from './webhooks/index.js';
import institutionPages from './institution/index.js';
import { sendPage } from './send.js';
import { optionalSession } from './session.js';
import signInPage from './sign-in/index.js';
import mediaRoutes from './media/index.js';
import studioPages from './studio/index.js';
import landingPage from './landing/index.js';
import chapterPages from './learning/chapter.js';
import quizPages from './learning/quiz.js';
import certificatePages from './learning/certificate.js';
import creditPages from './learning/credits.js';
import evaluationPages from './learning/evaluation.js';
import verificationPage from './learning/verification.js';
import { errorPage } from './view/layout.js';
import accountNotificationPages from './notifications/account.js';
import notificationAdminPages from './notifications/admin.js';

export { explainSignInError } from './sign-in/index.js';

/**
 * The pages under /dashboard, in their own scope so that their errors are pages too: without a
 * session, a redirect to /sign-in; a 403, 404, 413, 429 or 500 as an HTML page with that status; a database
 * outage, or a transaction rolled back for a concurrent one, a 503 page with Retry-After. The JSON API keeps its JSON errors (this handler covers
 * only the routes registered here).
 */
function pageErrors(app: Parameters<FastifyPluginAsyncZod>[0]) {
  app.setErrorHandler(async (err: FastifyError, request, reply) => {
    // The database, a concurrent transaction, or a busy Markdown renderer (lib/markdown/renderer.ts).
    const later = retryLaterError(request, err) ?? (err instanceof UnavailableError ? err : undefined);
    // No session lookup for the nav: the database is what is missing, or busy.
    if (later) return sendPage(reply.headers(later.headers), errorPage(pageContext(app, request), 503, null), 503);
    const status = err instanceof AppError ? err.statusCode : hasZodFastifySchemaValidationErrors(err) ? 404 : (err.statusCode ?? 500);
    if (status === 401) return reply.code(302).header('cache-control', 'no-store').redirect('/sign-in', 302);
    if (status >= 500) request.log.error({ err }, 'page failed');
    const user = await optionalSession(app, request);
    // 413: a form post over its scope's body limit (form-body.ts) says so rather than "not found".
    const shown = status === 403 || status === 404 || status === 413 || status === 429 ? status : status >= 500 ? 500 : 404;
    // A 429 (failed credentials from this address) keeps its Retry-After.
    if (err instanceof AppError) reply.headers(err.headers);
    // A 403's message is the page's own (in the person's language: ./api-keys/index.ts).
    return sendPage(reply, errorPage(pageContext(app, request), shown, user, shown === 403 ? err.message : undefined), shown);
  });
  app.setNotFoundHandler(async (request, reply) => {
    const user = await optionalSession(app, request);
    return sendPage(reply, errorPage(pageContext(app, request), 404, user), 404);
  });
}

const dashboardScope: FastifyPluginAsyncZod = async (app) => {
  pageErrors(app);
  await app.register(dashboardPage);
  await app.register(catalogPage);
  await app.register(coursePage);
  await app.register(bundlesPage);
  await app.register(apiKeysPage);
  await app.register(learningForms);
  await app.register(transfersPage);
  await app.register(learnersPages);
  await app.register(reportPages);
  await app.register(trailPages);
  await app.register(certificateAdminForms);
  await app.register(confirmTransferPage);
  await app.register(webhooksPage);
  await app.register(institutionPages);
  await app.register(schemesPage);
  await app.register(assetRoutes);
  await app.register(studioPages);
  await app.register(notificationAdminPages);
};

/**
 * Server-rendered pages: /sign-in and the dashboard (one module per page), in Bahasa Indonesia
 * or English (./i18n), with the language switch's /language.
 */
const pageRoutes: FastifyPluginAsyncZod = async (app) => {
  await app.register(signInPage);
  await app.register(landingPage);
  await app.register(languageRoute);
  await app.register(mediaRoutes);
  await app.register(dashboardScope, { prefix: '/dashboard' });
  // The learner's pages and the public certificate check, with the same error pages.
  await app.register(
    async (scope) => {
      pageErrors(scope);
      await scope.register(chapterPages);
      await scope.register(quizPages);
      await scope.register(certificatePages);
      await scope.register(creditPages);
      await scope.register(evaluationPages);
      await scope.register(statementPages);
    },
    { prefix: '/learn' },
  );
  await app.register(
    async (scope) => {
      pageErrors(scope);
      await scope.register(verificationPage);
    },
    { prefix: '/certificates' },
  );
  // Each person's own settings (notifications), with the same error pages.
  await app.register(
    async (scope) => {
      pageErrors(scope);
      await scope.register(accountNotificationPages);
    },
    { prefix: '/account' },
  );
};

export default pageRoutes;
