import t from 'tap';
import { apiKeyFor, makeUser, sessionCookieFor } from '../helpers/fixtures.js';
import { as } from '../learning/world.js';
import { download, earnCertificate, listeningWorld } from './world.js';

const w = await listeningWorld(t);
const code = await earnCertificate(w, w.learner.cookie);

t.test('attackers: only the holder downloads, in the API error shape', async (t) => {
  const other = await w.newLearner();
  const stranger = await download(w, other.cookie, code);
  t.equal(stranger.statusCode, 404, "another member asking for someone's code by code: 404, as if unknown");
  t.same(stranger.json(), { success: false, error: 'Certificate not found' });

  const key = await apiKeyFor(w.db, w.learner.user.id);
  const withKey = await w.app.inject({ url: `/api/learning/certificates/${code}/credential`, headers: { 'x-api-key': key } });
  t.equal(withKey.statusCode, 403, "an API key, even the holder's own");
  t.equal(withKey.json().success, false);

  const anonymous = await w.app.inject({ url: `/api/learning/certificates/${code}/credential` });
  t.equal(anonymous.statusCode, 401);
  t.equal(anonymous.json().success, false);

  for (const bad of ['x', code.toUpperCase(), `${code}0`, '%00', "1' or '1'='1", '0'.repeat(32)]) {
    const res = await download(w, w.learner.cookie, encodeURIComponent(bad));
    t.equal(res.statusCode, 404, `code ${JSON.stringify(bad)}`);
    t.equal(res.json().success, false);
  }
  const admin = await makeUser(w.db, { role: 'admin' });
  const asAdmin = await download(w, await sessionCookieFor(w.app, admin.id), code);
  t.equal(asAdmin.statusCode, 404, "an admin downloads nobody else's credential either (the holder only)");
});

t.test('the certificate list links the credential', async (t) => {
  const list = (await as(w.app, w.learner.cookie).get('/api/learning/certificates')).json();
  t.equal(list.certificates[0].credentialUrl, `${w.base}/api/learning/certificates/${code}/credential`);
});

t.test('the printable page links the download', async (t) => {
  const page = await as(w.app, w.learner.cookie).get(`/learn/certificates/${w.course.id}`);
  t.equal(page.statusCode, 200);
  t.match(page.body, `href="/api/learning/certificates/${code}/credential"`);
});

t.test('status lists: bad or unknown numbers are 404 JSON, never 5xx', async (t) => {
  for (const n of ['0', '-1', '99999999999999999999', 'x', '1.5', '01', '2', '16385', '%00']) {
    const res = await w.app.inject({ url: `/credentials/status/${n}` });
    t.equal(res.statusCode, 404, `n = ${n}`);
    t.same(res.json().success, false);
  }
  const one = await w.app.inject({ url: '/credentials/status/1' });
  t.equal(one.statusCode, 200);
});

t.test('the issuer profile and the institution profiles are public JSON', async (t) => {
  const issuer = await w.app.inject({ url: '/credentials/issuer' });
  t.same(issuer.json(), { id: `${w.base}/credentials/issuer`, type: ['Profile'], name: 'LMS', url: w.base });
  const institution = await w.app.inject({ url: `/credentials/institutions/${w.course.institutionId}` });
  t.match(institution.json(), {
    id: `${w.base}/credentials/institutions/${w.course.institutionId}`,
    type: ['Profile'],
    name: 'Test Institution',
  });
  for (const id of ['0', 'x', '99999999999999', '999999']) {
    t.equal((await w.app.inject({ url: `/credentials/institutions/${id}` })).statusCode, 404, `institution ${id}`);
  }
});
