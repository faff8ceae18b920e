import { chapters, partnerEvents } from '@lms/db';
import { asc, eq, sql } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import t from 'tap';
import { runCli } from '../../src/cli/run.js';
import { testConfig } from '../../src/testing.js';
import { asSession, makeBundle, makeCourse } from '../learning/enrolment-fixtures.js';
import { scratchDataDir } from '../helpers/cli.js';
import { addEndpointRow, drain, eventsWorld, receiver } from './fixtures.js';

// Every write path that a partner hears about queues its event in its own transaction; the events
// arrive signed with what the partner needs (course, KUM, verification URL, purchase).

interface Delivered {
  type: string;
  // biome-ignore lint/suspicious/noExplicitAny: a received payload, read field by field with tap's matchers.
  data: Record<string, any>;
}

t.test('what a member does reaches their partner, from every write path', async (t) => {
  const w = await eventsWorld(t);
  const a = await receiver(t);
  const end = await addEndpointRow(w.db.db, w.partnerA, a.url);
  const hook = new Webhook(end.secret);
  // Deliveries run concurrently, in no promised order: read them in the order of their sequence.
  const received = (): Delivered[] =>
    a.got
      .map((g) => hook.verify(g.body, g.headers as Record<string, string>) as Delivered)
      .sort((x, y) => x.data.sequence - y.data.sequence);
  const learner = w.cast.learner;
  const DATA_DIR = scratchDataDir();
  const cli = async (...argv: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(argv, {
      io: { out: (l) => out.push(l), err: (l) => err.push(l), progress: () => {}, isTty: false },
      config: testConfig({ DATA_DIR, ...(w.db.url ? { DATABASE_URL: w.db.url } : {}) }),
      ...(w.db.url ? {} : { db: w.db }),
    });
    return { code, out: out.join('\n'), err: err.join('\n') };
  };

  await t.test('completing every chapter: enrollment.completed, certificate.issued with KUM and URL', async (t) => {
    t.equal((await w.enrol(w.course.id, learner.cookie)).statusCode, 201);
    const list = await w.db.db.select().from(chapters).where(eq(chapters.courseId, w.course.id)).orderBy(asc(chapters.orderIndex));
    const complete = (id: number) =>
      w.app.inject({ method: 'POST', url: `/api/learning/chapters/${id}/completion`, headers: asSession(learner.cookie) });
    t.equal((await complete(list[0]!.id)).statusCode < 300, true);
    await drain(w.app, w.db.db);
    t.same(
      received().map((e) => e.type),
      ['enrollment.created'],
      'one chapter of two: not completed yet',
    );
    const done = await complete(list[1]!.id);
    t.ok(done.statusCode < 300, done.body);
    await complete(list[1]!.id); // again: nothing new
    await drain(w.app, w.db.db);
    const events = received();
    t.same(
      events.map((e) => e.type),
      ['enrollment.created', 'enrollment.completed', 'certificate.issued'],
    );
    const cert = events[2]!.data;
    t.equal(cert.certificate.kum, 4);
    t.match(cert.certificate.code, /^[0-9a-f]{32}$/);
    t.equal(cert.certificate.verificationUrl, `${w.app.config.PUBLIC_URL.replace(/\/$/, '')}/certificates/${cert.certificate.code}`);
    t.same(cert.course, { id: w.course.id, name: 'Etika Profesi' });
    t.ok(events[2]!.data.sequence > events[1]!.data.sequence, 'sequence orders them');
  });

  await t.test('revocation: CLI, the public page says so in both languages, certificate.revoked', async (t) => {
    const code = received().find((e) => e.type === 'certificate.issued')!.data.certificate.code as string;
    const res = await cli('certificate', 'revoke', code, '--reason', 'Plagiarism found');
    t.equal(res.code, 0, res.err);
    t.equal((await cli('certificate', 'revoke', code, '--reason', 'again')).code, 1, 'twice: refused');
    t.match((await cli('certificate', 'revoke', 'f'.repeat(32), '--reason', 'x')).err, /no certificate/);
    t.equal((await cli('certificate', 'revoke', code)).code, 2, 'a reason is required');
    for (const [lang, text] of [
      ['en', /revoked on .*Plagiarism found/],
      ['id', /dicabut pada .*Plagiarism found/],
    ] as const) {
      const page = await w.app.inject({ method: 'GET', url: `/certificates/${code}`, headers: { 'accept-language': lang } });
      t.equal(page.statusCode, 200);
      t.match(page.body, text, lang);
      t.notMatch(page.body, /This certificate is valid|Sertifikat ini sah/);
    }
    await drain(w.app, w.db.db);
    const revoked = received().find((e) => e.type === 'certificate.revoked');
    t.match(revoked?.data, { certificate: { code, reason: 'Plagiarism found' }, member: { membershipId: 'A-0001' } });
  });

  await t.test('a bundle paid: purchase.paid and one enrollment.created per course; refunded: purchase.refunded', async (t) => {
    const one = await makeCourse(w.db.db, w.cast.teacher, { isPurchasable: true, price: '100000', priceNonMember: '100000' }, 1);
    const two = await makeCourse(w.db.db, w.cast.teacher, { isPurchasable: true, price: '100000', priceNonMember: '100000' }, 1);
    const bundle = await makeBundle(w.db.db, one.id, two.id, { price: '150000' } as never);
    const before = a.got.length;
    const bought = await w.app.inject({
      method: 'POST',
      url: '/api/learning/purchases',
      headers: asSession(learner.cookie),
      payload: { bundleId: bundle.id },
    });
    t.equal(bought.statusCode, 201, bought.body);
    const id = bought.json().purchase.id as number;
    await drain(w.app, w.db.db);
    t.equal(a.got.length, before, 'pending: nothing yet');
    const confirmed = await w.app.inject({
      method: 'POST',
      url: `/api/learning/purchases/${id}/confirm`,
      headers: asSession(w.cast.admin.cookie),
    });
    t.equal(confirmed.statusCode, 200, confirmed.body);
    await drain(w.app, w.db.db);
    const fresh = a.got.slice(before).map((g) => JSON.parse(g.body) as Delivered);
    t.same(fresh.map((e) => e.type).sort(), ['enrollment.created', 'enrollment.created', 'purchase.paid']);
    t.match(fresh.find((e) => e.type === 'purchase.paid')!.data.purchase, { id, bundleId: bundle.id });

    // Refund: who may confirm it, nobody else; only a paid purchase; recorded who, when, why.
    t.match(await cli('purchase', 'refund', String(id), '--by', w.cast.otherAdmin.email, '--reason', 'x'), {
      code: 1,
      err: /Only an admin/,
    });
    t.match(await cli('purchase', 'refund', String(id), '--by', learner.email, '--reason', 'x'), { code: 1, err: /own purchase/ });
    t.match(await cli('purchase', 'refund', String(id), '--by', w.cast.admin.email), { code: 2 });
    const ok = await cli('purchase', 'refund', String(id), '--by', w.cast.admin.email, '--reason', 'Course cancelled');
    t.equal(ok.code, 0, ok.err);
    t.match(await cli('purchase', 'refund', String(id), '--by', w.cast.admin.email, '--reason', 'again'), { code: 1, err: /only a paid/i });
    const { rows } = await w.db.db.execute(sql`select status, close_reason, closed_by from purchases where id = ${id}`);
    t.same(rows[0], { status: 'refunded', close_reason: 'Course cancelled', closed_by: w.cast.admin.id });
    await drain(w.app, w.db.db);
    const refund = received().find((e) => e.type === 'purchase.refunded');
    t.match(refund?.data.purchase, { id, reason: 'Course cancelled' });
  });

  await t.test('a confirmation undone: purchase.unconfirmed names the enrolments taken back', async (t) => {
    const course = await makeCourse(w.db.db, w.cast.teacher, { isPurchasable: true, price: '100000', priceNonMember: '100000' }, 1);
    const bought = await w.app.inject({
      method: 'POST',
      url: '/api/learning/purchases',
      headers: asSession(learner.cookie),
      payload: { courseId: course.id },
    });
    t.equal(bought.statusCode, 201, bought.body);
    const id = bought.json().purchase.id as number;
    const by = asSession(w.cast.admin.cookie);
    t.equal((await w.app.inject({ method: 'POST', url: `/api/learning/purchases/${id}/confirm`, headers: by })).statusCode, 200);
    const undone = await w.app.inject({ method: 'POST', url: `/api/learning/purchases/${id}/confirmation/undo`, headers: by });
    t.equal(undone.statusCode, 200, undone.body);
    await drain(w.app, w.db.db);
    const mine = received().filter((e) => e.data.purchase?.id === id);
    t.same(
      mine.map((e) => e.type),
      ['purchase.paid', 'purchase.unconfirmed'],
      'paid, then taken back, in sequence order',
    );
    t.same(mine[1]!.data.purchase.unenrolledCourseIds, [course.id]);
  });

  await t.test('an endpoint that wants only some types gets only those', async (t) => {
    const b = await receiver(t);
    await addEndpointRow(w.db.db, w.partnerA, b.url, ['certificate.issued']);
    const c = await makeCourse(w.db.db, w.cast.teacher, { enrollmentType: 'open' }, 1);
    await w.enrol(c.id, learner.cookie);
    await drain(w.app, w.db.db);
    t.equal(b.got.length, 0, 'no enrollment.created for it');
    const [ch] = await w.db.db.select().from(chapters).where(eq(chapters.courseId, c.id));
    await w.app.inject({ method: 'POST', url: `/api/learning/chapters/${ch!.id}/completion`, headers: asSession(learner.cookie) });
    await drain(w.app, w.db.db);
    t.same(
      b.got.map((g) => JSON.parse(g.body).type),
      ['certificate.issued'],
    );
  });

  await t.test('the webhook CLI: add (https only here), list, log, replay, disable', async (t) => {
    t.match(await cli('webhook', 'add', '--iss', 'a.example.org', '--url', a.url), { code: 1, err: /must be https/ });
    t.match(await cli('webhook', 'add', '--iss', 'a.example.org', '--url', 'https://10.0.0.5/hook'), {
      code: 1,
      err: /not a public address/,
    });
    t.match(await cli('webhook', 'add', '--iss', 'nobody.example.org', '--url', 'https://hooks.example.org/x'), {
      code: 1,
      err: /no partner/,
    });
    t.match(await cli('webhook', 'add', '--iss', 'a.example.org', '--url', 'https://hooks.example.org/x', '--events', 'bogus.type'), {
      code: 1,
      err: /unknown event type/,
    });
    const added = await cli(
      'webhook',
      'add',
      '--iss',
      'a.example.org',
      '--url',
      'https://hooks.example.org/x',
      '--events',
      'purchase.paid',
    );
    t.equal(added.code, 0, added.err);
    t.match(added.out, /^whsec_[A-Za-z0-9+/]{43}=$/, 'the secret, once');
    const list = await cli('webhook', 'list');
    t.match(list.out, /hooks\.example\.org/);
    t.notMatch(list.out, /whsec_/, 'never shown again');
    const log = await cli('webhook', 'log', String(end.id));
    t.match(log.out, /delivered\s+200/);
    const [first] = await w.db.db.select().from(partnerEvents).orderBy(asc(partnerEvents.seq)).limit(1);
    const before = a.got.length;
    t.match(await cli('webhook', 'replay', '--event', first!.id), { code: 0, out: /1 deliveries/ });
    await drain(w.app, w.db.db);
    t.equal(a.got.length, before + 1);
    t.equal(a.got.at(-1)!.headers['webhook-id'], first!.id);
    const since = await cli('webhook', 'replay', String(end.id), '--since', '2000-01-01T00:00:00Z');
    t.match(since.out, /\d+ deliveries/);
    t.equal((await cli('webhook', 'disable', String(end.id))).code, 0);
    t.match((await cli('webhook', 'list', '--iss', 'a.example.org')).out, /disabled: disabled by an operator/);
    t.equal((await cli('webhook', 'rotate', '999999')).code, 1);
    t.equal((await cli('webhook', 'replay', String(end.id), '--since', 'yesterday')).code, 2);
  });
});
