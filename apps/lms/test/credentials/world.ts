import { generateKeyPairSync } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import type { Test } from 'tap';
import { as, finishAllButFinal, learningWorld, takeQuiz, type World } from '../learning/world.js';

/** A PKCS#8 PEM of a new RSA key (what an operator puts in CREDENTIAL_ISSUER_KEY). */
export function rsaPem(bits = 2048): string {
  return generateKeyPairSync('rsa', { modulusLength: bits }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
}

/**
 * The learning world's LMS listening on a real port (0: any free one), its PUBLIC_URL set to that
 * address so that credentials name it as their issuer: verify.ts fetches the JWKS and the status
 * lists from it over HTTP, as a third party would.
 */
export async function listeningWorld(t: Test): Promise<World & { base: string }> {
  const w = await learningWorld(t);
  await w.app.listen({ port: 0, host: '127.0.0.1' });
  const address = w.app.server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  const base = `http://127.0.0.1:${address.port}`;
  w.app.config.PUBLIC_URL = base;
  return Object.assign(w, { base });
}

/** A learner who walks the whole course through the API and passes the final: their certificate code. */
export async function earnCertificate(w: World, cookie: string): Promise<string> {
  await finishAllButFinal(w, cookie);
  const passed = await takeQuiz(w.app, cookie, w.tree.finalQuizId, 'a');
  const code = passed.json().certificateCode;
  if (typeof code !== 'string') throw new Error(`no certificate: ${passed.body}`);
  return code;
}

/** The holder's download, through HTTP. */
export async function download(w: World, cookie: string, code: string) {
  return as(w.app, cookie).get(`/api/learning/certificates/${code}/credential`);
}

export const parts = (jwt: string) => ({ header: decodeProtectedHeader(jwt), payload: decodeJwt(jwt) as Record<string, unknown> });
