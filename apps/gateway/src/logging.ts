import type { FastifyRequest, FastifyServerOptions } from 'fastify';

/** `?token=<JWT>` becomes `?token=[redacted]`: a partner's SSO token is a bearer credential until it expires. */
export function redactTokenInUrl(url: string): string {
  return url.replace(/([?&]token=)[^&#]*/gi, '$1[redacted]');
}

/** Fastify's request log fields, with the token left out of the URL. */
function serializeRequest(request: FastifyRequest) {
  return {
    method: request.method,
    url: redactTokenInUrl(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

/** Adds the redacting request serializer to any logger configuration given as options. */
export function withRedaction(logger: FastifyServerOptions['logger']): FastifyServerOptions['logger'] {
  if (!logger || logger === true) return logger === true ? { serializers: { req: serializeRequest } } : logger;
  return { ...logger, serializers: { req: serializeRequest, ...logger.serializers } };
}
