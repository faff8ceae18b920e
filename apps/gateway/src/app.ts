import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyServerOptions, LogController } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { connectionLimitsOptions, isHealthProbe, jsonBodyPlugin, lifecyclePlugin, logHealthProbes, withRedaction } from '@lms/server-kit';
import type { GatewayConfig } from './config.js';
import errorHandlerPlugin, { GatewayError } from './plugins/error-handler.js';
import metricsPlugin from './plugins/metrics.js';
import openApiPlugin from './plugins/openapi.js';
import partnersPlugin, { type PartnersPluginOptions } from './plugins/partners.js';
import healthRoutes from './routes/health/index.js';
import courseRoutes from './routes/courses/index.js';
import authoringRoutes from './routes/authoring/index.js';
import partnerCreditRoutes from './routes/partner-credits/index.js';
import partnerEvidenceRoutes from './routes/partner-credits/evidence.js';
import partnerTeacherRoutes from './routes/partner-teachers/index.js';
import ssoRoutes from './routes/sso/index.js';

export interface GatewayDeps {
  config: GatewayConfig;
  logger?: FastifyServerOptions['logger'];
  /** How PARTNERS_FILE changes are picked up (tests shorten the waits). */
  partnersWatch?: Omit<PartnersPluginOptions, 'file'>;
  /** The clock (the SSO proof's expiry); injected so tests control it. */
  clock?: () => Date;
}

/** Builds the gateway. Only server.ts listens. */
export async function buildGateway(deps: GatewayDeps) {
  const { config } = deps;
  const app = Fastify({
    logger: withRedaction(deps.logger ?? { level: config.LOG_LEVEL }),
    requestIdHeader: 'x-request-id',
    genReqId: () => randomUUID(),
    // Only our own proxies' X-Forwarded-For is believed; none by default.
    trustProxy: config.trustProxy.length > 0 ? config.trustProxy : false,
    bodyLimit: config.BODY_LIMIT_BYTES,
    // A slow client is cut: its headers, its whole request, an idle keep-alive socket (server-kit).
    ...connectionLimitsOptions(config),
    // On close: idle keep-alive sockets are closed, in-flight requests finish; a request arriving
    // meanwhile gets the lifecycle plugin's 503 rather than Fastify's own body.
    forceCloseConnections: 'idle',
    return503OnClosing: false,
    // Health probes are logged at debug (probe-logging in @lms/server-kit), not with a request line at info.
    logController: new LogController({ disableRequestLogging: isHealthProbe }),
  }).withTypeProvider<ZodTypeProvider>();
  logHealthProbes(app);

  app.decorate('gatewayConfig', config);
  app.decorate('gatewayClock', deps.clock ?? (() => new Date()));
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
    // No answer of ours is meant to be content-sniffed (JSON, the docs UI).
    reply.header('x-content-type-options', 'nosniff');
  });

  await app.register(errorHandlerPlugin);
  // The body as sent is kept (request.rawJsonBody): it is what the gateway forwards.
  await app.register(jsonBodyPlugin, { tooDeep: (message) => new GatewayError(400, message), keepRawText: true });
  await app.register(lifecyclePlugin, { closingError: () => new GatewayError(503, 'The gateway is shutting down; retry the request') });
  await app.register(metricsPlugin);
  await app.register(partnersPlugin, { file: config.PARTNERS_FILE, ...deps.partnersWatch });
  await app.register(openApiPlugin, { publicUrl: config.PUBLIC_URL });
  await app.register(healthRoutes);
  await app.register(ssoRoutes);
  await app.register(courseRoutes);
  await app.register(authoringRoutes);
  await app.register(partnerCreditRoutes);
  await app.register(partnerEvidenceRoutes);
  await app.register(partnerTeacherRoutes);
  return app;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Named apart from the LMS's `config`: both augment FastifyInstance in tests that run both. */
    gatewayConfig: GatewayConfig;
    /** The gateway's clock (named apart from the LMS's `clock` for the same reason). */
    gatewayClock: () => Date;
  }
}

export type GatewayApp = Awaited<ReturnType<typeof buildGateway>>;
