import t from 'tap';
import { buildTestApp } from '../helpers/app.js';
import { makeUser, sessionCookieFor } from '../helpers/fixtures.js';

// Every page form that changes state (`csrf: 'form'`: a plain HTML form cannot send the header the
// JSON routes need) refuses a member's session when the post does not come from the LMS's own
// pages: a foreign Origin, a cross-site fetch, or neither header at all. Listed by the CSRF plugin
// as the routes register, so a new form route is attacked here without being named.

t.test("attacker: a member's session posting any page form from elsewhere is a 403", async (t) => {
  const { app } = await buildTestApp(t);
  await app.ready();
  const formRoutes = app.csrfFormRoutes;
  const student = await makeUser(app.db, { role: 'student' });
  const cookie = await sessionCookieFor(app, student.id);

  t.ok(formRoutes.length >= 7, `the learner's and teacher's forms take the form rule (${formRoutes.length})`);
  for (const route of formRoutes) {
    const url = route.url.replace(/:[A-Za-z]+/g, '1');
    const post = (headers: Record<string, string>) =>
      app.inject({
        method: route.method as 'POST',
        url,
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', ...headers },
        payload: '',
      });
    t.equal((await post({ origin: 'https://evil.example' })).statusCode, 403, `${route.method} ${route.url}: a foreign Origin`);
    t.equal((await post({ 'sec-fetch-site': 'cross-site' })).statusCode, 403, `${route.method} ${route.url}: Sec-Fetch-Site cross-site`);
    t.equal((await post({})).statusCode, 403, `${route.method} ${route.url}: neither Origin nor Sec-Fetch-Site`);
    // The `null` Origin of a sandboxed frame or a data: page is not the LMS either.
    t.equal((await post({ origin: 'null' })).statusCode, 403, `${route.method} ${route.url}: Origin null`);
  }
});
