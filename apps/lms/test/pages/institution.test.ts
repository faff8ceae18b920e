import { institutions } from '@lms/db';
import { eq } from 'drizzle-orm';
import t from 'tap';
import { buildTestApp } from '../helpers/app.js';
import { makeRoleCast } from '../helpers/cast.js';
import { makeInstitution, makeUser, sessionCookieFor } from '../helpers/fixtures.js';

// /dashboard/institution: an institution's admins (and super_admin, for any) set its transfer
// account without a terminal; everyone else is refused and nothing changes. The nav links it,
// and the webhooks page, for the roles that may open them, and for no one else.

const ORIGIN = 'http://localhost:3000';
const FORM = 'application/x-www-form-urlencoded';

t.test('the institution settings page', async (t) => {
  const { app, db } = await buildTestApp(t);
  const home = await makeInstitution(db.db, 'Lembaga Rumah');
  const away = await makeInstitution(db.db, 'Lembaga Tetangga');
  const cast = await makeRoleCast(app, db.db, { institutionId: home });
  const otherAdminUser = await makeUser(db.db, { role: 'admin', institutionId: away });
  const otherAdmin = await sessionCookieFor(app, otherAdminUser.id);
  const lonelyAdminUser = await makeUser(db.db, { role: 'admin', institutionId: null });
  const lonelyAdmin = await sessionCookieFor(app, lonelyAdminUser.id);
  const member = await makeUser(db.db, { role: 'student', institutionId: home });
  const memberCookie = await sessionCookieFor(app, member.id);

  const get = (url: string, cookie: string, lang: 'id' | 'en' = 'id') =>
    app.inject({ method: 'GET', url, headers: { cookie: `${cookie}; lms_lang=${lang}` } });
  const post = (url: string, cookie: string, body: Record<string, string> | string, lang: 'id' | 'en' = 'id', origin = ORIGIN) =>
    app.inject({
      method: 'POST',
      url,
      headers: { cookie: `${cookie}; lms_lang=${lang}`, origin, 'content-type': FORM },
      payload: typeof body === 'string' ? body : new URLSearchParams(body).toString(),
    });
  const account = async (id: number) => {
    const [row] = await db.db
      .select({ bank: institutions.transferBank, number: institutions.transferAccountNumber, holder: institutions.transferAccountHolder })
      .from(institutions)
      .where(eq(institutions.id, id));
    return row;
  };
  const none = { bank: null, number: null, holder: null };
  const good = { bank: 'Bank Contoh', number: '123-456-7890', holder: 'Yayasan Lembaga Rumah' };
  const save = (id: number) => `/dashboard/institutions/${id}/transfer-account`;

  await t.test('no session: to sign-in', async (t) => {
    t.equal((await app.inject({ method: 'GET', url: '/dashboard/institution' })).statusCode, 302);
    t.equal((await app.inject({ method: 'GET', url: `/dashboard/institutions/${home}` })).statusCode, 302);
  });

  await t.test(
    'a teacher, a member, an admin without an institution and another institution’s admin are refused; nothing changes',
    async (t) => {
      for (const [who, cookie] of [
        ['a teacher', cast.teacher.cookie],
        ['a member of the institution', memberCookie],
        ['a learner', cast.student.cookie],
      ] as const) {
        t.equal((await get('/dashboard/institution', cookie)).statusCode, 403, `${who}: the entry point is a 403`);
        const page = await get(`/dashboard/institutions/${home}`, cookie);
        t.equal(page.statusCode, 403, `${who}: the settings page is a 403`);
        t.match(page.body, 'href="/dashboard"', `${who}: the 403 page links back to the dashboard`);
        t.equal((await post(save(home), cookie, good)).statusCode, 403, `${who}: saving is a 403`);
        t.equal((await post(`${save(home)}/clear`, cookie, '')).statusCode, 403, `${who}: removing is a 403`);
      }
      const lonely = await get('/dashboard/institution', lonelyAdmin, 'en');
      t.equal(lonely.statusCode, 403, 'an admin of no institution: a 403');
      t.match(lonely.body, 'not linked to any institution', 'saying why');
      t.equal((await get(`/dashboard/institutions/${home}`, otherAdmin)).statusCode, 403, "another institution's admin: 403 on ours");
      const crafted = await post(save(home), otherAdmin, good, 'en');
      t.equal(crafted.statusCode, 403, "another institution's admin posting to ours: 403");
      t.match(crafted.body, 'Not allowed', 'in the page shape, in their language');
      t.same(await account(home), none, 'nothing changed');
    },
  );

  await t.test('crafted ids: a 404 page, never a 5xx', async (t) => {
    for (const id of ['abc', '0', '-1', '1.5', '99999999999999999999', '2147483648', '%00']) {
      const page = await get(`/dashboard/institutions/${id}`, cast.admin.cookie);
      t.equal(page.statusCode, 404, `GET ${id}: 404`);
      t.equal((await post(save(id as unknown as number), cast.admin.cookie, good)).statusCode, 404, `POST ${id}: 404`);
    }
    t.equal((await get('/dashboard/institutions/999999', cast.superAdmin.cookie)).statusCode, 404, 'no such institution: 404');
    t.equal((await post(save(999999), cast.superAdmin.cookie, good)).statusCode, 404, 'saving to none: 404');
  });

  await t.test('a cross-site post is refused', async (t) => {
    const res = await post(save(home), cast.admin.cookie, good, 'id', 'https://evil.example');
    t.equal(res.statusCode, 403);
    t.same(await account(home), none, 'nothing changed');
  });

  await t.test('wrong values: a 422 page naming each field’s problem beside it, in both languages; nothing saved', async (t) => {
    const empty = await post(save(home), cast.admin.cookie, { bank: ' ', number: '', holder: 'Ada' });
    t.equal(empty.statusCode, 422);
    t.match(empty.body, 'Rekening belum disimpan');
    t.equal(empty.body.match(/class="field-error"[^>]*>Wajib diisi\./g)?.length, 2, 'bank and number: required, beside each');
    t.match(empty.body, 'id="ta-bank" name="bank" value=""');
    t.match(empty.body, 'aria-describedby="ta-bank-error"');
    t.match(empty.body, 'value="Ada"', 'what was typed stays');
    const en = await post(save(home), cast.admin.cookie, { bank: 'B'.repeat(201), number: `12\u000034`, holder: 'H' }, 'en');
    t.equal(en.statusCode, 422);
    t.match(en.body, 'At most 200 characters.');
    t.match(en.body, 'Holds a character that cannot be used');
    t.notMatch(en.body, '\u0000', 'the NUL is not shown back');
    const id = await post(save(home), cast.admin.cookie, { bank: 'B', number: 'N'.repeat(101), holder: `H\u0007` });
    t.match(id.body, 'Paling banyak 100 karakter.');
    t.match(id.body, 'Berisi karakter yang tidak dapat dipakai');
    t.notMatch(id.body, /Required|At most|characters/, 'no English on the Indonesian page');
    const repeated = await post(save(home), cast.admin.cookie, 'bank=A&bank=B&number=1&holder=H');
    t.equal(repeated.statusCode, 303, 'a repeated name: the first value (the form body rule)');
    await post(`${save(home)}/clear`, cast.admin.cookie, '');
    const huge = await post(save(home), cast.admin.cookie, { bank: 'x'.repeat(5000), number: '1', holder: 'H' });
    t.equal(huge.statusCode, 413, 'a body past the form limit: 413');
    t.same(await account(home), none, 'nothing saved');
  });

  await t.test('the admin sets, sees and removes the account', async (t) => {
    const entry = await get('/dashboard/institution', cast.admin.cookie);
    t.equal(entry.statusCode, 200, 'the entry point is their institution’s page');
    t.match(entry.body, 'Pengaturan Lembaga Rumah');
    t.match(entry.body, `action="/dashboard/institutions/${home}/transfer-account"`);
    const before = await get(`/dashboard/institutions/${home}`, cast.admin.cookie);
    t.equal(before.statusCode, 200);
    t.match(before.body, 'Pengaturan Lembaga Rumah');
    t.match(before.body, 'Belum diatur');
    t.match(before.body, 'id="payment-gateways"', 'the place where payment gateway keys will go');
    t.match(before.body, 'aria-current="page">Lembaga</a>', 'the nav marks the page');
    const saved = await post(save(home), cast.admin.cookie, { bank: ` ${good.bank} `, number: good.number, holder: good.holder });
    t.equal(saved.statusCode, 303);
    t.equal(saved.headers.location, `/dashboard/institutions/${home}?done=saved`);
    t.same(await account(home), good, 'saved, trimmed');
    t.same(await account(away), none, 'the other institution untouched');
    const after = await get(`/dashboard/institutions/${home}?done=saved`, cast.admin.cookie, 'en');
    t.match(after.body, 'Transfer account saved.');
    t.match(after.body, '<code>123-456-7890</code>');
    t.match(after.body, 'Remove the account');
    const cleared = await post(`${save(home)}/clear`, cast.admin.cookie, '');
    t.equal(cleared.headers.location, `/dashboard/institutions/${home}?done=cleared`);
    t.same(await account(home), none, 'removed');
  });

  await t.test('super_admin keeps any institution', async (t) => {
    const list = await get('/dashboard/institution', cast.superAdmin.cookie, 'en');
    t.equal(list.statusCode, 200);
    t.match(list.body, `href="/dashboard/institutions/${home}"`);
    t.match(list.body, `href="/dashboard/institutions/${away}"`);
    const hostile = await makeInstitution(db.db, '<script>alert(1)</script>');
    const named = await get('/dashboard/institution', cast.superAdmin.cookie, 'en');
    t.match(named.body, '&lt;script&gt;alert(1)&lt;/script&gt;', 'a hostile name stays text');
    t.notMatch(named.body, '<script>alert(1)', 'never markup');
    t.match((await get(`/dashboard/institutions/${hostile}`, cast.superAdmin.cookie)).body, 'Pengaturan &lt;script&gt;');
    const res = await post(save(away), cast.superAdmin.cookie, good);
    t.equal(res.statusCode, 303);
    t.same(await account(away), good);
    t.equal((await post(save(away), cast.admin.cookie, { ...good, bank: 'Bank Lain' })).statusCode, 403, 'our admin cannot change theirs');
    t.same(await account(away), good, 'unchanged');
  });

  await t.test('the nav links the institution and webhooks pages for the roles that may open them only', async (t) => {
    for (const [who, cookie, institution, webhooks] of [
      ['super_admin', cast.superAdmin.cookie, true, true],
      ['an institution admin', cast.admin.cookie, true, false],
      ['a teacher', cast.teacher.cookie, false, false],
      ['a learner', cast.student.cookie, false, false],
    ] as const) {
      const dashboard = await get('/dashboard', cookie);
      t.equal(dashboard.statusCode, 200);
      const nav = /<nav class="links"[\s\S]*?<\/nav>/.exec(dashboard.body)?.[0] ?? '';
      t.equal(nav.includes('href="/dashboard/institution"'), institution, `${who}: institution link ${institution ? 'shown' : 'absent'}`);
      t.equal(nav.includes('href="/dashboard/webhooks"'), webhooks, `${who}: webhooks link ${webhooks ? 'shown' : 'absent'}`);
      const target = await get('/dashboard/webhooks', cookie);
      t.equal(target.statusCode, webhooks ? 200 : 403, `${who}: the webhooks page ${webhooks ? 'opens' : 'is a 403'}`);
      if (!webhooks) t.match(target.body, '<a href="/dashboard">', `${who}: the 403 links back to the dashboard`);
    }
  });
});
