import { randomUUID } from 'node:crypto';
import type { DbHandle } from '@lms/db';
import { connectionLimitsOptions, isHealthProbe, jsonBodyPlugin, lifecyclePlugin, logHealthProbes, withRedaction } from '@lms/server-kit';
import Fastify, { type FastifyServerOptions, LogController } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { type Clock, systemClock } from './clock.js';
import type { LmsConfig } from './config.js';
import { lmsLoggerOptions } from './logger.js';
import { boundedValidatorCompiler } from './lib/bounded-validation.js';
import { serializerCompiler } from './lib/serializers.js';
import cookie from '@fastify/cookie';
import authPlugin, { type AuthOptions } from './plugins/auth.js';
import databasePlugin from './plugins/database.js';
import { BadRequestError, UnavailableError } from './errors.js';
import errorHandlerPlugin from './plugins/error-handler.js';
import failedCredentialsPlugin, { type FailedCredentialsOptions } from './plugins/failed-credentials.js';
import markdownPlugin, { type MarkdownOptions } from './plugins/markdown.js';
import metricsPlugin from './plugins/metrics.js';
import housekeepingPlugin, { type HousekeepingOptions } from './plugins/housekeeping.js';
import jobsPlugin, { type JobsOptions } from './plugins/jobs.js';
import partnerEventsPlugin, { type PartnerEventsOptions } from './plugins/partner-events.js';
import { deliveryJobs, type SendDeliveries } from './domain/partner-events/queue.js';
import memberCheckPlugin, { type MemberCheckOptions } from './plugins/member-check.js';
import openapiPlugin from './plugins/openapi.js';
import paymentsPlugin from './plugins/payments.js';
import catalogCachePlugin from './plugins/catalog-cache.js';
import credentialsPlugin from './plugins/credentials.js';
import credentialRoutes from './routes/credentials/index.js';
import csrfPlugin from './plugins/csrf.js';
import rateLimitPlugin, { type RateLimitOptions } from './plugins/rate-limit.js';
import apiKeyRoutes from './routes/api-keys/index.js';
import catalogRoutes from './routes/catalog/index.js';
import healthRoutes from './routes/health/index.js';
import courseCreationRoutes from './routes/course-creation/index.js';
import accreditationRoutes from './routes/authoring/accreditations.js';
import authoringRoutes from './routes/authoring/index.js';
import partnerCreditRoutes from './routes/partner-credits/index.js';
import partnerEvidenceRoutes from './routes/partner-credits/evidence.js';
import partnerTeacherRoutes from './routes/partner-teachers/index.js';
import progressRoutes from './routes/progress/index.js';
import learningRoutes from './routes/learning/index.js';
import partnerAuthPlugin, { type PartnerAuthOptions } from './plugins/partner-auth.js';
import pageRoutes from './pages/index.js';
import ssoRoutes from './routes/sso/index.js';
import enrolmentCodeLimiter from './routes/learning/code-limiter.js';
import enrollmentRoutes from './routes/learning/enrollment.js';
import purchaseRoutes from './routes/learning/purchases.js';
import whatsAppWebhookRoutes from './routes/webhooks/whatsapp.js';
import type { OnWhatsAppStatus } from './notifications/whatsapp/webhook.js';
import type { Notify, WhatsAppSender } from './notifications/contract.js';
import { deploymentReceipts, type EnqueueNotification } from './notifications/notify.js';
import { whatsAppSenderFromConfig } from './notifications/whatsapp/index.js';
import notificationsPlugin, { type NotificationChannelsOptions } from './plugins/notifications.js';
import type { Receipts } from './notifications/receipts.js';
import unsubscribeRoutes from './pages/notifications/unsubscribe.js';

export interface AppDeps {
  config: LmsConfig;
  db: DbHandle;
  /** Close the database with the app (the server does; tests that share a database do not). */
  ownsDb?: boolean;
  clock?: Clock;
  logger?: FastifyServerOptions['logger'];
  auth?: AuthOptions;
  rateLimit?: RateLimitOptions;
  failedCredentials?: FailedCredentialsOptions;
  partnerAuth?: PartnerAuthOptions;
  housekeeping?: HousekeepingOptions;
  /** The job queue's supervision interval and test queues (plugins/jobs.ts). */
  jobs?: JobsOptions;
  partnerEvents?: PartnerEventsOptions;
  /** How deliveries made due get their jobs (default: the job queue's partner-events.deliver). */
  sendDeliveries?: SendDeliveries;
  memberCheck?: MemberCheckOptions;
  /** The Markdown renderer's limits (tests shorten its time limit). */
  markdown?: MarkdownOptions;
  /** What a WhatsApp delivered/read/failed status does (POST /webhooks/whatsapp); unset: logged only. */
  onWhatsAppStatus?: OnWhatsAppStatus;
  /** Puts a recorded notification's sending on the job queue, in the recording transaction (default below). */
  enqueueNotification?: EnqueueNotification;
  /** Sends the WhatsApp number confirmation codes (notifications/whatsapp/); unset: numbers cannot be confirmed. */
  notificationWhatsApp?: WhatsAppSender | null;
  /** The channels the send job uses (tests give a local SMTP server's); default: the configuration's. */
  notifications?: NotificationChannelsOptions;
}

/** Builds the LMS. Only server.ts listens; tests call this and use `app.inject()`. */
export async function buildApp(deps: AppDeps) {
  const { config } = deps;
  const clock = deps.clock ?? systemClock;
  const app = Fastify({
    // SSO tokens travel in URLs (/sso/verify, the callback): never in a log line.
    logger: withRedaction(lmsLoggerOptions(deps.logger, config.LOG_LEVEL)),
    requestIdHeader: 'x-request-id',
    genReqId: () => randomUUID(),
    trustProxy: config.trustProxy.length > 0 ? config.trustProxy : false,
    bodyLimit: config.BODY_LIMIT_BYTES,
    // A slow client is cut: its headers, its whole request, an idle keep-alive socket (server-kit).
    ...connectionLimitsOptions(config),
    // On close: idle keep-alive sockets are closed, in-flight requests finish; a request arriving
    // meanwhile gets the lifecycle plugin's JSON 503 rather than Fastify's own body.
    forceCloseConnections: 'idle',
    return503OnClosing: false,
    // Health probes are logged at debug (probe-logging in @lms/server-kit), not with a request line at info.
    logController: new LogController({ disableRequestLogging: isHealthProbe }),
  }).withTypeProvider<ZodTypeProvider>();
  logHealthProbes(app);

  // Bounded: at most MAX_REPORTED_ISSUES problems, found in at most one pass of zod (lib/bounded-validation.ts).
  app.setValidatorCompiler(boundedValidatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.decorate('clock', clock);
  app.decorate('config', config);
  // Notifications (docs/operations.md, "Notifications"): the domain records receipts through
  // app.receipts; each recorded row's send is a job written in the same transaction.
  const enqueue: EnqueueNotification =
    deps.enqueueNotification ??
    (async (tx, id) => {
      await app.jobs.sendInTransaction(tx, 'notification.send', { id });
    });
  const receipts = deploymentReceipts(config.PUBLIC_URL, enqueue, deps.sendDeliveries ?? deliveryJobs(() => app.jobs));
  app.decorate('receipts', receipts);
  app.decorate('notify', receipts.notify);
  app.decorate(
    'notificationWhatsApp',
    deps.notificationWhatsApp !== undefined ? deps.notificationWhatsApp : whatsAppSenderFromConfig(config),
  );
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
    // No answer of ours is meant to be content-sniffed (JSON, pages, the docs UI).
    reply.header('x-content-type-options', 'nosniff');
  });

  // Plugins in the order they depend on each other; routes last.
  await app.register(errorHandlerPlugin);
  await app.register(jsonBodyPlugin, { tooDeep: (message) => new BadRequestError(message) });
  await app.register(lifecyclePlugin, {
    closingError: () => new UnavailableError('The service is shutting down; retry the request'),
  });
  await app.register(databasePlugin, { handle: deps.db, ownsHandle: deps.ownsDb ?? false });
  await app.register(markdownPlugin, deps.markdown ?? {});
  await app.register(metricsPlugin);
  // The job queue before everything that sends or works on it.
  await app.register(jobsPlugin, deps.jobs ?? {});
  await app.register(housekeepingPlugin, deps.housekeeping ?? {});
  await app.register(notificationsPlugin, deps.notifications ?? {});
  await app.register(partnerEventsPlugin, deps.partnerEvents ?? {});
  await app.register(memberCheckPlugin, deps.memberCheck ?? {});
  await app.register(cookie);
  await app.register(failedCredentialsPlugin, deps.failedCredentials ?? {});
  await app.register(partnerAuthPlugin, deps.partnerAuth ?? {});
  await app.register(authPlugin, deps.auth ?? {});
  // After auth: their onRequest hooks need the resolved caller (global hooks run in this order).
  await app.register(csrfPlugin);
  await app.register(rateLimitPlugin, deps.rateLimit ?? {});
  await app.register(openapiPlugin);
  await app.register(paymentsPlugin);
  await app.register(catalogCachePlugin);
  await app.register(credentialsPlugin);

  await app.register(enrolmentCodeLimiter);
  await app.register(healthRoutes);
  await app.register(ssoRoutes);
  await app.register(pageRoutes);
  await app.register(apiKeyRoutes);
  await app.register(progressRoutes);
  await app.register(catalogRoutes);
  await app.register(courseCreationRoutes);
  await app.register(authoringRoutes);
  await app.register(accreditationRoutes);
  await app.register(partnerCreditRoutes);
  await app.register(partnerEvidenceRoutes);
  await app.register(partnerTeacherRoutes);
  await app.register(enrollmentRoutes);
  await app.register(purchaseRoutes);
  await app.register(learningRoutes);
  await app.register(credentialRoutes);
  await app.register(whatsAppWebhookRoutes, { onStatus: deps.onWhatsAppStatus ?? ((update) => app.recordWhatsAppStatus(update)) });
  await app.register(unsubscribeRoutes);

  return app;
}

export type LmsApp = Awaited<ReturnType<typeof buildApp>>;

declare module 'fastify' {
  interface FastifyInstance {
    clock: Clock;
    config: LmsConfig;
    /** Records a notification in the caller's transaction and enqueues its sending (notifications/notify.ts). */
    notify: Notify;
    /** What the domain records receipts with: app.notify and PUBLIC_URL. */
    receipts: Receipts;
    /** The WhatsApp sender of the confirmation codes; null: none configured. */
    notificationWhatsApp: WhatsAppSender | null;
  }
}
