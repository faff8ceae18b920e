import { notificationPreferences, notificationSettings, notifications } from '@lms/db';
import { eq } from 'drizzle-orm';
import t from 'tap';
import type { OutgoingWhatsApp, WhatsAppSender } from '../../src/notifications/contract.js';
import { buildTestApp } from '../helpers/app.js';
import { apiKeyFor } from '../helpers/fixtures.js';
import { makeCast, makeCourse } from '../learning/enrolment-fixtures.js';

// The people's side: /account/notifications in both languages, its checks and the WhatsApp
// number's code; the staff's delivery log and institution settings, tried by every attacker.

const NOW = new Date('2026-07-01T08:00:00.000Z');
const FORM = { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://localhost:3000' };

t.test('notification pages', async (t) => {
  const sent: OutgoingWhatsApp[] = [];
  // The WhatsApp channel's sender, as injected: it keeps what it is given (the code goes nowhere else).
  const whatsapp: WhatsAppSender = {
    send: async (m) => {
      sent.push(m);
      return { providerMessageId: `wamid.${sent.length}` };
    },
  };
  let now = NOW;
  const { app, db: testDb } = await buildTestApp(t, { deps: { clock: () => now, notificationWhatsApp: whatsapp } });
  const db = testDb.db;
  const cast = await makeCast(app, db);
  const { learner, otherLearner, admin, otherAdmin, superAdmin, teacher } = cast;
  const get = (url: string, cookie?: string, lang?: string) =>
    app.inject({ method: 'GET', url, headers: { cookie: [cookie, lang && `lms_lang=${lang}`].filter(Boolean).join('; ') } });
  const post = (url: string, cookie: string, body: string) =>
    app.inject({ method: 'POST', url, headers: { ...FORM, cookie }, payload: body });

  await t.test('the settings page in both languages; receipts locked on', async (t) => {
    const id = await get('/account/notifications', learner.cookie, 'id');
    t.equal(id.statusCode, 200);
    t.match(id.body, /<h1>Pengaturan notifikasi<\/h1>/);
    t.match(id.body, /Pembayaran diterima<\/th><td><input type="checkbox" checked disabled/, 'a receipt: checked, disabled');
    t.match(id.body, /selalu dikirim/);
    const en = await get('/account/notifications', learner.cookie, 'en');
    t.match(en.body, /<h1>Notification settings<\/h1>/);
    t.match(en.body, /Quiet hours from \(HH:MM\)/);
    t.match(en.body, /name="on:course.inactive:email" value="1" checked/, 'on by default');
    t.equal((await get('/account/notifications')).statusCode, 302, 'no session: to sign-in');
    const dashboard = await get('/dashboard', learner.cookie, 'en');
    t.match(dashboard.body, /<a href="\/account\/notifications">Notification settings<\/a>/, 'linked from the dashboard');
  });

  await t.test('saving: wrong values are a 422 beside the field; right ones are kept', async (t) => {
    const bad = await post(
      '/account/notifications',
      learner.cookie,
      'locale=en&timeZone=Mars%2FOlympus&quietStart=25%3A00&quietEnd=&phone=0812&optIn=1',
    );
    t.equal(bad.statusCode, 422);
    t.match(bad.body, /Bukan zona waktu yang dikenal/);
    t.match(bad.body, /Tulis jam sebagai JJ:MM/);
    t.match(bad.body, /dengan kode negara/);
    t.match(bad.body, /value="Mars\/Olympus"/, 'what was typed comes back');
    t.same(await db.select().from(notificationSettings).where(eq(notificationSettings.userId, learner.id)), [], 'nothing saved');
    const half = await post('/account/notifications', learner.cookie, 'locale=id&timeZone=Asia%2FJakarta&quietStart=21%3A00&quietEnd=');
    t.equal(half.statusCode, 422);
    t.match(half.body, /Isi kedua jam, atau kosongkan keduanya\./, 'in the language of the page');

    const good = await post(
      '/account/notifications',
      learner.cookie,
      'locale=en&timeZone=asia%2Fmakassar&quietStart=21%3A30&quietEnd=06%3A00&phone=%2B62+812-3456-7890&optIn=1' +
        '&on:course.ending:email=1&on:purchase.expiring:email=1&on:purchase.paid:email=',
    );
    t.equal(good.statusCode, 303);
    t.equal(good.headers.location, '/account/notifications?done=saved');
    const [s] = await db.select().from(notificationSettings).where(eq(notificationSettings.userId, learner.id));
    t.match(s, {
      locale: 'en',
      timeZone: 'Asia/Makassar',
      quietStartMinute: 1290,
      quietEndMinute: 360,
      whatsappPhone: '+6281234567890',
      whatsappOptIn: true,
      phoneConfirmedAt: null,
    });
    const off = await db.select().from(notificationPreferences).where(eq(notificationPreferences.userId, learner.id));
    const offNames = off.filter((p) => !p.enabled).map((p) => `${p.kind} ${p.channel}`);
    t.ok(offNames.includes('course.inactive email'), 'unticked: off');
    t.notOk(offNames.includes('course.ending email'), 'ticked: on');
    t.notOk(
      off.some((p) => p.kind === 'purchase.paid'),
      'a receipt is never written',
    );
  });

  await t.test('the WhatsApp number: a code, 5 tries, 10 minutes', async (t) => {
    t.equal(
      (await post('/account/notifications/phone/confirm', learner.cookie, 'code=123456')).headers.location,
      '/account/notifications?done=code-noCode',
    );
    const asked = await post('/account/notifications/phone/code', learner.cookie, '');
    t.equal(asked.headers.location, '/account/notifications?done=code-sent');
    t.equal(sent.length, 1);
    t.match(sent[0], { to: '6281234567890', template: { name: 'phone_confirmation', language: 'en', parameters: [/^\d{6}$/] } });
    const code = sent[0]!.template.parameters[0]!;
    const [stored] = await db.select().from(notificationSettings).where(eq(notificationSettings.userId, learner.id));
    t.not(stored!.confirmationCodeHash, code, 'only a hash is kept');
    const wrong = code === '000000' ? '111111' : '000000';
    for (let i = 1; i <= 4; i++) {
      t.equal(
        (await post('/account/notifications/phone/confirm', learner.cookie, `code=${wrong}`)).headers.location,
        '/account/notifications?done=code-wrong',
      );
    }
    t.equal(
      (await post('/account/notifications/phone/confirm', learner.cookie, `code=${wrong}`)).headers.location,
      '/account/notifications?done=code-tooManyTries',
      'the fifth wrong',
    );
    t.equal(
      (await post('/account/notifications/phone/confirm', learner.cookie, `code=${code}`)).headers.location,
      '/account/notifications?done=code-tooManyTries',
      'then even the right one',
    );

    await post('/account/notifications/phone/code', learner.cookie, '');
    const second = sent[1]!.template.parameters[0]!;
    now = new Date(NOW.getTime() + 10 * 60_000 + 1);
    t.equal(
      (await post('/account/notifications/phone/confirm', learner.cookie, `code=${second}`)).headers.location,
      '/account/notifications?done=code-expired',
    );
    await post('/account/notifications/phone/code', learner.cookie, '');
    const third = sent[2]!.template.parameters[0]!;
    t.equal(
      (await post('/account/notifications/phone/confirm', learner.cookie, `code=${third}`)).headers.location,
      '/account/notifications?done=code-confirmed',
    );
    const page = await get('/account/notifications?done=code-confirmed', learner.cookie, 'en');
    t.match(page.body, /WhatsApp number confirmed\./);
    t.match(page.body, /Number confirmed\./);
    const [confirmed] = await db.select().from(notificationSettings).where(eq(notificationSettings.userId, learner.id));
    t.ok(confirmed!.phoneConfirmedAt, 'confirmed');
    await post('/account/notifications', learner.cookie, 'locale=en&timeZone=Asia%2FJakarta&phone=%2B6289999999999&optIn=1');
    const [changed] = await db.select().from(notificationSettings).where(eq(notificationSettings.userId, learner.id));
    t.equal(changed!.phoneConfirmedAt, null, 'a new number is unconfirmed again');
    now = NOW;
  });

  await t.test('the digests: shown only to the people they reach; a crafted switch of another is ignored', async (t) => {
    const rows = async (cookie: string) => {
      const body = (await get('/account/notifications', cookie, 'en')).body;
      return { admin: /name="on:digest\.admin:email"/.test(body), teacher: /name="on:digest\.teacher:email"/.test(body), body };
    };
    const digestPrefs = async (userId: string) =>
      (await db.select().from(notificationPreferences).where(eq(notificationPreferences.userId, userId)))
        .filter((p) => p.kind.startsWith('digest.'))
        .map((p) => `${p.kind} ${p.channel} ${p.enabled}`)
        .sort();
    const crafted = 'locale=en&timeZone=Asia%2FJakarta&on:course.inactive:email=1';

    const member = await rows(learner.cookie);
    t.same([member.admin, member.teacher], [false, false], 'a member: no digest row');
    t.notMatch(member.body, /Admin digest|Teacher digest/);
    t.match(member.body, /name="on:course.inactive:email"/, 'the other kinds still are');
    const saved = await post('/account/notifications', learner.cookie, `${crafted}&on:digest.admin:email=1&on:digest.teacher:whatsapp=1`);
    t.equal(saved.statusCode, 303, 'the rest of the form is saved');
    t.same(await digestPrefs(learner.id), [], 'nothing written for a digest the member cannot receive (the earlier saves included)');

    t.same(Object.values(await rows(teacher.cookie)).slice(0, 2), [false, false], 'a teacher of no course: no digest either');
    await makeCourse(db, teacher);
    const teaching = await rows(teacher.cookie);
    t.same([teaching.admin, teaching.teacher], [false, true], 'the owner of a course: the teacher digest');
    t.match(teaching.body, /Teacher digest<\/th>/);
    t.equal((await post('/account/notifications', teacher.cookie, `${crafted}&on:digest.admin:email=1`)).statusCode, 303);
    t.same(
      await digestPrefs(teacher.id),
      ['digest.teacher email false', 'digest.teacher whatsapp false'],
      "unticked: the teacher digest off; the admin digest's crafted switch not written",
    );

    for (const [who, person] of [
      ['an institution admin', admin],
      ['a super_admin', superAdmin],
    ] as const) {
      const seen = await rows(person.cookie);
      t.same([seen.admin, seen.teacher], [true, false], `${who}: the admin digest`);
      t.equal(
        (await post('/account/notifications', person.cookie, `${crafted}&on:digest.admin:whatsapp=1&on:digest.teacher:email=1`)).statusCode,
        303,
      );
      t.same(
        await digestPrefs(person.id),
        ['digest.admin email false', 'digest.admin whatsapp true'],
        `${who}: saved, the teacher digest not`,
      );
    }
    t.match((await get('/account/notifications', admin.cookie, 'id')).body, /Ringkasan admin<\/th>/, 'in Indonesian too');
  });

  await t.test('the delivery log: the institution admin and super_admin only', async (t) => {
    // The learner of the admin's institution, with one row to see.
    const member = otherLearner;
    const { users } = await import('@lms/db');
    await db.update(users).set({ institutionId: cast.institutionId }).where(eq(users.id, member.id));
    await db.insert(notifications).values({
      key: 'course.inactive:course:1:2026-W27',
      userId: member.id,
      institutionId: cast.institutionId,
      kind: 'course.inactive',
      channel: 'email',
      data: {},
      state: 'failed',
      attempts: 5,
      lastError: 'TemporaryDeliveryError: 451 Mailbox busy',
    });
    const url = `/dashboard/institution/notifications?user=${member.id}`;
    const seen = await get(url, admin.cookie, 'en');
    t.equal(seen.statusCode, 200);
    t.match(seen.body, /Study reminder<\/td>/);
    t.match(seen.body, /failed/);
    t.match(seen.body, /451 Mailbox busy/);
    t.equal((await get(url, superAdmin.cookie)).statusCode, 200, 'super_admin');
    t.equal((await get(url, otherAdmin.cookie)).statusCode, 404, "another institution's admin: not found");
    t.equal((await get(url, teacher.cookie)).statusCode, 403, 'a teacher');
    t.equal((await get(url, learner.cookie)).statusCode, 403, 'another member');
    t.equal((await get(url, member.cookie)).statusCode, 403, 'the person themself (their settings page is theirs)');
    const key = await apiKeyFor(db, admin.id);
    const byKey = await app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
    t.not(byKey.statusCode, 200, 'an API key');
    t.notMatch(byKey.body, /Mailbox busy/);
    t.equal((await get(url)).statusCode, 302, 'no session: to sign-in');
    for (const res of [await get(url, otherAdmin.cookie), await get(url, teacher.cookie)]) t.notMatch(res.body, /Mailbox busy/);
  });

  await t.test('institution settings: kinds off and a from-address', async (t) => {
    const url = `/dashboard/institutions/${cast.institutionId}/notifications`;
    t.equal((await get(url, admin.cookie)).statusCode, 200);
    t.equal((await post(url, otherAdmin.cookie, 'off:course.inactive=1')).statusCode, 403, "another institution's admin");
    t.equal((await post(url, teacher.cookie, 'off:course.inactive=1')).statusCode, 403, 'a teacher');
    t.equal((await post(url, learner.cookie, 'off:course.inactive=1')).statusCode, 403, 'a member');
    const bad = await post(url, admin.cookie, 'off:course.inactive=1&fromAddress=not+an+address');
    t.equal(bad.statusCode, 422);
    t.match(bad.body, /Bukan alamat email yang sah\./);
    const good = await post(url, admin.cookie, 'off:course.inactive=1&off:purchase.paid=1&fromAddress=kursus%40lembaga.example');
    t.equal(good.statusCode, 303);
    const page = await get(`${url}?done=saved`, superAdmin.cookie, 'en');
    t.match(page.body, /name="off:course.inactive" value="1" checked/);
    t.notMatch(page.body, /off:purchase.paid/, 'receipts are not offered');
    t.match(page.body, /value="kursus@lembaga.example"/);
  });
});
