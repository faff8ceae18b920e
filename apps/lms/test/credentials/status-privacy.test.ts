import { gunzipSync } from 'node:zlib';
import { certificates } from '@lms/db';
import { inArray } from 'drizzle-orm';
import t from 'tap';
import { revokeCertificate } from '../../src/domain/learning/certificate-revocation.js';
import { download, earnCertificate, listeningWorld, parts } from './world.js';
import { outboxOnly } from '../../src/domain/partner-events/queue.js';

// Issue 40 (Low): the status list's indexes were the certificates' row ids, so anyone reading
// the public list (no account needed) learnt how many certificates exist and which ones, in
// issue order, were revoked. The Bitstring Status List spec: "Implementations SHOULD assign
// indexes randomly, such that inferences — such as the recency of the assignment or the size of
// the group — cannot be easily drawn from that position."

t.test('an outsider reading the public status list learns nothing of the certificate ids', async (t) => {
  const w = await listeningWorld(t);
  const now = () => w.time.clock();
  const learners = [w.learner, await w.newLearner(), await w.newLearner(), await w.newLearner()];
  const codes: string[] = [];
  for (const learner of learners) codes.push(await earnCertificate(w, learner.cookie));
  const indexes: number[] = [];
  for (const [i, code] of codes.entries()) {
    const status = parts((await download(w, learners[i]!.cookie, code)).body).payload.credentialStatus as {
      statusListIndex: string;
      statusListCredential: string;
    };
    t.equal(status.statusListCredential, `${w.base}/credentials/status/1`);
    indexes.push(Number(status.statusListIndex));
  }
  const rows = await w.db
    .select({ id: certificates.id, code: certificates.code })
    .from(certificates)
    .where(inArray(certificates.code, codes));
  const ids = codes.map((code) => rows.find((r) => r.code === code)!.id);
  t.same(
    ids.map((id, i) => id - ids[0]! - i),
    [0, 0, 0, 0],
    'the four certificates were issued one after another (consecutive row ids)',
  );
  t.notSame(indexes, ids, 'their indexes are not their row ids');
  t.ok(Math.max(...indexes) - Math.min(...indexes) > 1_000, `nor close together: ${indexes.join(', ')}`);

  // Revoke the second and the fourth: the outsider reads the list.
  for (const i of [1, 3]) t.equal((await revokeCertificate(w.db, outboxOnly, codes[i]!, 'Wrong person', now())).outcome, 'revoked');
  const listJwt = await (await fetch(`${w.base}/credentials/status/1`)).text();
  const { encodedList } = (parts(listJwt).payload as { credentialSubject: { encodedList: string } }).credentialSubject;
  const bits = gunzipSync(Buffer.from(encodedList.slice(1), 'base64url'));
  const set: number[] = [];
  for (let i = 0; i < bits.length * 8; i++) if (bits[i >> 3]! & (0x80 >> (i & 7))) set.push(i);
  t.same(
    set,
    [indexes[1]!, indexes[3]!].sort((a, b) => a - b),
    'the bits set are the revoked credentials’ indexes, and only they',
  );
  t.notOk(
    set.some((bit) => ids.includes(bit)),
    'no bit set at a certificate row id: the list does not count certificates nor date a revocation',
  );
});
