import t from 'tap';
import { redactTokenInUrl, serializeRequestRedacted, withRedaction } from '../src/log-redaction.js';

t.test('token and proof parameters are redacted, whatever their case and position', async (t) => {
  t.equal(redactTokenInUrl('/sso/verify?token=a.b.c'), '/sso/verify?token=[redacted]');
  t.equal(redactTokenInUrl('/sso/verify?token=a.b.c&proof=xyz'), '/sso/verify?token=[redacted]&proof=[redacted]');
  t.equal(redactTokenInUrl('/cb?x=1&TOKEN=a.b&token=c.d#frag'), '/cb?x=1&TOKEN=[redacted]&token=[redacted]#frag');
  t.equal(redactTokenInUrl('/api/courses?limit=12'), '/api/courses?limit=12', 'other parameters stay');
  t.equal(redactTokenInUrl('/path/token=abc'), '/path/token=abc', 'only query parameters');
});

t.test('the request serializer has Fastify’s fields, the URL redacted', async (t) => {
  t.same(
    serializeRequestRedacted({ method: 'GET', url: '/sso/verify?token=a.b.c', host: 'lms', ip: '10.0.0.1', socket: { remotePort: 4242 } }),
    {
      method: 'GET',
      url: '/sso/verify?token=[redacted]',
      host: 'lms',
      remoteAddress: '10.0.0.1',
      remotePort: 4242,
    },
  );
});

t.test('withRedaction adds the serializer to a logger option, a serializer of the caller’s own wins', async (t) => {
  t.equal(withRedaction(false), false);
  t.equal(withRedaction(undefined), undefined);
  t.same(withRedaction(true), { serializers: { req: serializeRequestRedacted } });
  const options = withRedaction({ level: 'info', serializers: { res: String } } as { level: string; serializers?: object });
  t.same(options, { level: 'info', serializers: { req: serializeRequestRedacted, res: String } });
  const own = () => ({});
  t.equal((withRedaction({ serializers: { req: own } }).serializers as { req: unknown }).req, own);
});
