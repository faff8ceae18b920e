import fp from 'fastify-plugin';
import { credentialIssuerKeyPem } from '../config.js';
import type { IssuerSettings } from '../domain/credentials/credential.js';
import { configuredIssuerKey, developmentIssuerKey, type IssuerKey } from '../domain/credentials/keys.js';

export interface CredentialIssuer {
  settings: IssuerSettings;
  /** The key new credentials and status lists are signed with (loaded once; retried after a failure). */
  key(): Promise<IssuerKey>;
}

declare module 'fastify' {
  interface FastifyInstance {
    credentialIssuer: CredentialIssuer;
  }
}

/**
 * The Open Badges credential issuer (domain/credentials): its settings and its signing key. A
 * configured key is recorded on start (its public half published); a development key is made or
 * read on first use, with a warning. In production without a key the app is not built at all.
 */
export default fp(
  async (app) => {
    // Throws the clear message (config.ts) when production has no key or the key is unfit.
    const pem = credentialIssuerKeyPem(app.config);
    let loading: Promise<IssuerKey> | null = null;
    const issuer: CredentialIssuer = {
      get settings() {
        return { publicUrl: app.config.PUBLIC_URL, issuerName: app.config.CREDENTIAL_ISSUER_NAME };
      },
      key() {
        if (loading) return loading;
        const promise = pem
          ? configuredIssuerKey(app.db, pem)
          : developmentIssuerKey(app.db).then((key) => {
              app.log.warn(
                { kid: key.kid },
                'credentials are signed with a development key kept in the database: set CREDENTIAL_ISSUER_KEY or CREDENTIAL_ISSUER_KEY_FILE for a real deployment',
              );
              return key;
            });
        promise.catch(() => {
          if (loading === promise) loading = null;
        });
        loading = promise;
        return promise;
      },
    };
    app.decorate('credentialIssuer', issuer);
    if (pem) {
      // On start: the configured key's public half is recorded (published). A database that cannot
      // answer now does not stop the start: the first credential or status list records it.
      app.addHook('onReady', async () => {
        await issuer.key().catch((err: unknown) => app.log.warn({ err }, 'the credential issuer key could not be recorded yet'));
      });
    }
  },
  { name: 'credentials', dependencies: ['database'] },
);
