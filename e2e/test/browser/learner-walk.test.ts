import { fileURLToPath } from 'node:url';
import { courses, creditTargets, enrollments, partners, users } from '@lms/db';
import { DEMO_QUICK_COURSE, insertQuickCourse } from '@lms/db/seed';
import { eq } from 'drizzle-orm';
import t from 'tap';
import { launchBrowser, screenshot } from '../helpers/browser.js';
import { download, pdfText, run, signedIn, signInThroughPartner } from '../helpers/pages.js';
import { freePort, makeTeacher, startDemoPartner, startLms } from '../helpers/services.js';

// CI runs this file once (not again in the PostgreSQL pass): pages driven in Chromium; the SQL behind them runs on both backends in apps/lms's page tests.

// A member takes the demo's short course in a real browser, once in English and once in Bahasa
// Indonesia (the pages' default), each on an LMS of its own: signs in through the demo partner,
// reads every chapter, fails the chapter quiz once and passes it, passes the module quiz and the
// final exam, opens the certificate and its public verification page, sees the year's credits
// move towards the partner's target on the dashboard; downloads the certificate's
// PDF (its text read back) and its Open Badges credential (verified by `lms-admin credential
// verify` over HTTP); an admin revokes it on the learner's page, and the public page and the
// verifier then say revoked.

/** The words a learner clicks and reads, in each language of the pages (the pages' catalogs). */
const WORDS = {
  en: {
    codeLabel: 'Enrolment code',
    enrol: 'Enrol',
    wrongCode: 'The enrolment code is wrong.',
    enrolled: 'You are enrolled. Enjoy the course!',
    markComplete: 'Mark as complete',
    completed: 'Completed',
    takeQuiz: "Take this chapter's quiz",
    start: 'Start',
    submit: 'Submit answers',
    failed: 'Not passed',
    passed: 'Passed',
    tryAgain: 'Try again',
    locked: 'Locked',
    viewCertificate: 'View certificate',
    certificate: 'Certificate',
    kum: /Credit points\s*2 KUM/,
    downloadPdf: 'Download PDF',
    credits: (earned: number) => `${earned} / 30 KUM in ${new Date().getFullYear()}`,
    credential: 'Download the digital credential (Open Badges 3.0)',
    reason: /^Reason for revoking/,
    revoke: 'Revoke certificate',
    revokedFlash: 'The certificate is revoked.',
  },
  id: {
    codeLabel: 'Kode pendaftaran',
    enrol: 'Daftar',
    wrongCode: 'Kode pendaftaran salah.',
    enrolled: 'Anda sudah terdaftar. Selamat belajar!',
    markComplete: 'Tandai selesai',
    completed: 'Selesai',
    takeQuiz: 'Kerjakan kuis bab ini',
    start: 'Mulai mengerjakan',
    submit: 'Kirim jawaban',
    failed: 'Belum lulus',
    passed: 'Lulus',
    tryAgain: 'Coba lagi',
    locked: 'Terkunci',
    viewCertificate: 'Lihat sertifikat',
    certificate: 'Sertifikat',
    kum: /Angka kredit\s*2 KUM/,
    downloadPdf: 'Unduh PDF',
    credits: (earned: number) => `${earned} / 30 KUM pada ${new Date().getFullYear()}`,
    credential: 'Unduh kredensial digital (Open Badges 3.0)',
    reason: /^Alasan pencabutan/,
    revoke: 'Cabut sertifikat',
    revokedFlash: 'Sertifikat dicabut.',
  },
} as const;

const LMS_ADMIN = fileURLToPath(new URL('../../../apps/lms/dist/cli/main.js', import.meta.url));
/** `lms-admin credential verify` as this LMS's operator runs it: its PUBLIC_URL is the expected issuer. */
const verify = (file: string, lmsUrl: string) => run(process.execPath, [LMS_ADMIN, 'credential', 'verify', file], { PUBLIC_URL: lmsUrl });

const MEMBERS = {
  en: { email: 'dewi.anggota@example.org', name: 'Dewi Anggota', membershipId: 'IAI-000777' },
  id: { email: 'rudi.anggota@example.org', name: 'Rudi Anggota', membershipId: 'IAI-000778' },
} as const;

for (const lang of ['en', 'id'] as const)
  t.test(`a member takes a course from the first chapter to the certificate (${lang})`, async (t) => {
    const w = WORDS[lang];
    const member = MEMBERS[lang];
    const port = await freePort();
    const lmsUrl = `http://127.0.0.1:${port}`;
    const lms = await startLms(t, { PUBLIC_URL: lmsUrl }, port);
    const db = lms.db.db;
    const { institutionId, teacherId } = await makeTeacher(db);
    await insertQuickCourse(db, { teacherId, institutionId, categoryId: null, now: new Date() });
    const [course] = await db.select().from(courses).where(eq(courses.courseCode, DEMO_QUICK_COURSE.code));
    const { partnerUrl } = await startDemoPartner(t, lmsUrl, db);

    const browser = await launchBrowser(t);
    const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    await context.addCookies([{ name: 'lms_lang', value: lang, url: lmsUrl }]);
    const page = await context.newPage();

    await signInThroughPartner(page, partnerUrl, lmsUrl, member);
    // The demo partner asks its members for 30 KUM a year: the dashboard shows the year's progress.
    const [partner] = await db.select({ id: partners.id }).from(partners).limit(1);
    await db.insert(creditTargets).values({ partnerId: partner!.id, scheme: 'KUM', period: 'calendar_year', years: 1, amount: 30 });
    const yearsCredits = async () => {
      await page.goto(`${lmsUrl}/dashboard`);
      return page.locator('section[aria-labelledby="credits-this-year"]').innerText();
    };
    t.match(await yearsCredits(), w.credits(0), 'no credits yet this year');

    // Enrol with the course's code on its page: a wrong code first, then the right one.
    const coursePage = `${lmsUrl}/dashboard/courses/${course!.id}`;
    await page.goto(coursePage);
    await page.getByLabel(w.codeLabel).fill('NOT-THE-CODE');
    await page.getByRole('button', { name: w.enrol, exact: true }).click();
    await page.getByText(w.wrongCode).waitFor();
    const [account] = await db.select().from(users).where(eq(users.email, member.email));
    t.same(await db.select().from(enrollments).where(eq(enrollments.userId, account!.id)), [], 'a wrong code enrols nobody');
    await page.getByLabel(w.codeLabel).fill('COBA-DEMO');
    await page.getByRole('button', { name: w.enrol, exact: true }).click();
    await page.getByText(w.enrolled).waitFor();
    t.equal((await db.select().from(enrollments).where(eq(enrollments.userId, account!.id))).length, 1, 'the code enrols the member');
    await page.getByRole('link', { name: 'Apa itu etika profesi', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Apa itu etika profesi' }).waitFor();
    await screenshot(page, `learner-1-chapter-${lang}`);
    await page.getByRole('button', { name: w.markComplete }).click();
    await page.getByText(w.completed, { exact: true }).waitFor();

    // The chapter quiz: wrong first (chapter 2 stays locked), then right.
    await page.getByRole('link', { name: w.takeQuiz }).click();
    await page.getByRole('button', { name: w.start }).click();
    await page.waitForURL(/\/learn\/quiz-attempts\/\d+$/);
    t.notMatch(await page.content(), /isCorrect|Etika profesi menjaga kepercayaan/, 'no answer key on the quiz page');
    await page.locator('input[type=radio][value=b]').check();
    await screenshot(page, `learner-2-quiz-${lang}`);
    await page.getByRole('button', { name: w.submit }).click();
    await page.getByText(w.failed).waitFor();
    await screenshot(page, `learner-3-quiz-failed-${lang}`);
    const locked = await page.goto(`${lmsUrl}/dashboard/courses/${course!.id}`);
    t.equal(locked?.status(), 200);
    t.match(await page.locator('ol.modules').innerText(), new RegExp(`Konflik kepentingan\\s*${w.locked}`), 'chapter 2 waits for the quiz');
    await page.goBack();
    await page.getByRole('button', { name: w.tryAgain }).click();
    await page.locator('input[type=radio][value=a]').check();
    await page.getByRole('button', { name: w.submit }).click();
    await page.getByText(w.passed, { exact: true }).waitFor();

    for (const name of ['Konflik kepentingan', 'Menjaga kerahasiaan']) {
      await page.goto(coursePage);
      await page.getByRole('link', { name, exact: true }).click();
      await page.getByRole('button', { name: w.markComplete }).click();
      await page.getByText(w.completed, { exact: true }).waitFor();
    }

    await page.goto(coursePage);
    await page
      .locator('section[aria-labelledby="modules"]')
      .getByRole('link', { name: /Kuis Modul/ })
      .click();
    await page.getByRole('button', { name: w.start }).click();
    await page.locator('input[type=radio][value=a]').check();
    await page.getByRole('button', { name: w.submit }).click();
    await page.getByText(w.passed, { exact: true }).waitFor();

    await page.goto(coursePage);
    await page
      .locator('section[aria-labelledby="modules"]')
      .getByRole('link', { name: /Ujian Akhir/ })
      .click();
    await page.getByRole('button', { name: w.start }).click();
    const radios = page.locator('fieldset.question');
    await radios.nth(0).locator('input[value=a]').check();
    await radios.nth(1).locator('input[value=b]').check();
    await page.getByRole('button', { name: w.submit }).click();
    await page.getByText(w.passed, { exact: true }).waitFor();
    await screenshot(page, `learner-4-final-passed-${lang}`);

    await page.getByRole('link', { name: w.viewCertificate }).click();
    await page.getByRole('heading', { name: w.certificate }).waitFor();
    const certificate = await page.locator('main').innerText();
    t.match(certificate, member.name);
    t.match(certificate, member.membershipId);
    t.match(certificate, new RegExp(DEMO_QUICK_COURSE.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
    t.match(certificate, w.kum);
    await screenshot(page, `learner-5-certificate-${lang}`);

    // The public page, in a browser without the session.
    const link = await page.getByRole('link', { name: /\/certificates\/[0-9a-f]{32}$/ }).getAttribute('href');
    const anonymous = await (await browser.newContext({ locale: 'id-ID' })).newPage(); // Indonesian, from Accept-Language
    const pub = await anonymous.goto(`${lmsUrl}${link}`);
    t.equal(pub?.status(), 200);
    t.match(await anonymous.locator('main').innerText(), new RegExp(`Sertifikat ini sah\\.[\\s\\S]*${member.name}`));
    t.notMatch(await anonymous.locator('main').innerText(), member.membershipId, 'no membership number in public');
    await screenshot(anonymous, `learner-6-verification-${lang}`);

    t.match(await yearsCredits(), w.credits(2), "the course's 2 KUM count towards the year's target");
    await screenshot(page, `learner-5b-dashboard-credits-${lang}`);
    await page.goto(`${lmsUrl}/learn/certificates/${course!.id}`);

    // The PDF, downloaded as the member does and read by poppler's pdftotext (another reader than
    // the pdf.js of the LMS's own tests): the name, the course, the verification URL.
    const pdf = await download(page, page.getByRole('link', { name: w.downloadPdf }));
    t.equal(pdf.bytes.subarray(0, 5).toString(), '%PDF-', `${pdf.name} is a PDF`);
    const text = await pdfText(pdf.path);
    t.match(text, member.name);
    t.match(text, DEMO_QUICK_COURSE.name);
    t.match(text, `${lmsUrl}${link}`);
    t.notMatch(text, member.membershipId, 'the PDF never shows the membership number');

    // The Open Badges credential, checked by `lms-admin credential verify` as a third party would:
    // over HTTP, against the JWKS and the status list the LMS publishes.
    const credential = await download(page, page.getByRole('link', { name: w.credential }));
    t.match(credential.name, /^certificate-[0-9a-f]{32}\.jwt$/);
    const valid = await verify(credential.path, lmsUrl);
    t.equal(valid.code, 0, valid.stdout + valid.stderr);
    t.match(valid.stdout, /^VALID: /);

    // An admin of the course's institution revokes it on the learner's page (a super_admin here).
    const [admin] = await db
      .insert(users)
      .values({ email: `walk.admin.${lang}@example.org`, name: 'Walk Admin', role: 'super_admin' })
      .returning();
    const adminPage = await signedIn(browser, lmsUrl, lms.app.sessionCookieName, db, admin!.id, lang);
    await adminPage.goto(`${lmsUrl}/dashboard/courses/${course!.id}/learners/${account!.id}#certificate`);
    await adminPage.getByLabel(w.reason).fill('Nama peserta salah');
    await adminPage.getByRole('button', { name: w.revoke }).click();
    await adminPage.getByText(w.revokedFlash).waitFor();
    await screenshot(adminPage, `learner-7-revoked-by-admin-${lang}`);
    await anonymous.goto(`${lmsUrl}${link}`);
    // The anonymous browser reads Indonesian (its Accept-Language), whatever the member's language.
    t.match(
      await anonymous.locator('main').innerText(),
      /Sertifikat ini dicabut pada .*Alasan: Nama peserta salah/,
      'the public page says revoked, with the reason',
    );
    await screenshot(anonymous, `learner-8-verification-revoked-${lang}`);
    t.match(await yearsCredits(), w.credits(0), 'a revoked certificate earns no credit');
    const revoked = await verify(credential.path, lmsUrl);
    t.equal(revoked.code, 1, 'the same file no longer verifies');
    t.match(revoked.stdout, /^REVOKED: /);
  });
