// Request logging without bearer credentials, for both apps: a partner's SSO token travels in
// the URL (`/sso/verify?token=<JWT>` on the gateway, `/sso/verify` and `/api/auth/sso/callback`
// on the LMS) and is a credential until it expires, so no log line may carry it.

/**
 * `?token=<JWT>` becomes `?token=[redacted]` (any `token` parameter, whatever its case), and the
 * gateway's `proof` beside it likewise: alone it is worth nothing, but a log line is no place to
 * keep half of what signs a member in.
 */
export function redactTokenInUrl(url: string): string {
  return url.replace(/([?&](?:token|proof)=)[^&#]*/gi, '$1[redacted]');
}

/** The fields of a Fastify request the request serializer reads. */
export interface LoggedRequest {
  method: string;
  url: string;
  host?: string;
  ip?: string;
  socket?: { remotePort?: number } | null;
}

/** Fastify's default request log fields, with the token left out of the URL. */
export function serializeRequestRedacted(request: LoggedRequest) {
  return {
    method: request.method,
    url: redactTokenInUrl(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

/**
 * Adds the redacting request serializer to a Fastify `logger` option (true, or an options object;
 * false and undefined stay as they are). A serializer of the caller's own for `req` wins.
 */
export function withRedaction<T extends boolean | { serializers?: object } | undefined>(logger: T): T {
  if (!logger) return logger;
  if (logger === true) return { serializers: { req: serializeRequestRedacted } } as unknown as T;
  const options = logger as { serializers?: object };
  return { ...options, serializers: { req: serializeRequestRedacted, ...options.serializers } } as T;
}
