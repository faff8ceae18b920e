import t from 'tap';
import { GATEWAY_PROOF_TTL_SECONDS, Reasons, signGatewayProof, verifyGatewayProof } from '../src/index.js';

const SECRET = 'gateway-secret-for-tests-0123456789';
const TOKEN = 'eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJwLnRlc3QifQ.c2lnbmF0dXJl';
const NOW = 1_795_000_000;

t.test('a proof the gateway signed for a token is valid for that token for its life', async (t) => {
  const proof = signGatewayProof(SECRET, TOKEN, NOW);
  t.match(proof, /^\d{10}\.[A-Za-z0-9_-]{43}$/);
  t.equal(proof.split('.')[0], String(NOW + GATEWAY_PROOF_TTL_SECONDS), 'its expiry is in clear');
  t.same(verifyGatewayProof(SECRET, TOKEN, proof, NOW), { ok: true, expiresAt: NOW + GATEWAY_PROOF_TTL_SECONDS });
  t.same(
    verifyGatewayProof(SECRET, TOKEN, proof, NOW + GATEWAY_PROOF_TTL_SECONDS + 10),
    { ok: true, expiresAt: NOW + GATEWAY_PROOF_TTL_SECONDS },
    'within the tolerance',
  );
});

t.test('refusals, each with its reason', async (t) => {
  const proof = signGatewayProof(SECRET, TOKEN, NOW);
  const [exp, mac] = proof.split('.') as [string, string];
  const refused = (given: unknown, problem: string, at = NOW, token = TOKEN, secret = SECRET) => {
    const check = verifyGatewayProof(secret, token, given, at);
    t.equal(check.ok, false, `${problem}: ${String(given).slice(0, 30)}`);
    if (!check.ok) {
      t.equal(check.problem, problem);
      t.match(check.reason, /^The sign-in did not come through the gateway: /);
      t.equal(check.reason, Reasons.notThroughGateway(check.reason.slice('The sign-in did not come through the gateway: '.length, -1)));
    }
  };
  refused(undefined, 'missing');
  refused('', 'missing');
  refused([proof, proof], 'malformed');
  refused('nonsense', 'malformed');
  refused(`${exp}.${mac}=`, 'malformed');
  refused(`-${exp}.${mac}`, 'malformed');
  refused(`${exp}.${mac.slice(1)}`, 'malformed');
  // Forged: the right shape without the secret; another token's proof; another secret's proof.
  refused(`${exp}.${'A'.repeat(43)}`, 'mismatch');
  refused(signGatewayProof(SECRET, `${TOKEN}x`, NOW), 'mismatch');
  refused(signGatewayProof('another-secret-0123456789abcdef', TOKEN, NOW), 'mismatch');
  // Its expiry moved later without a new MAC.
  refused(`${Number(exp) + 3600}.${mac}`, 'mismatch');
  // The same MAC bytes spelled with other trailing bits: one proof has one spelling.
  // 43 characters carry 258 bits for 256: the last character's two low bits are not data.
  const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  const twin = mac.slice(0, -1) + ALPHABET[ALPHABET.indexOf(mac.at(-1)!) ^ 1];
  t.ok(Buffer.from(twin, 'base64url').equals(Buffer.from(mac, 'base64url')), 'the twin decodes to the same bytes');
  refused(`${exp}.${twin}`, 'mismatch');
  // Expired: an authentic proof past its life and the tolerance.
  refused(proof, 'expired', NOW + GATEWAY_PROOF_TTL_SECONDS + 11);
  // An authentic proof that expires later than the gateway ever signs (a clock far behind).
  refused(proof, 'too_far_ahead', NOW - 20);
});
