import { sql } from 'drizzle-orm';
import t from 'tap';
import { teacherWithSampleCourse } from '../../helpers/authoring.js';
import { makeInstitution, makeUser } from '../../helpers/fixtures.js';
import { browserOf, fieldValue, OWN_ORIGIN } from './helpers.js';

// The studio's import page (/dashboard/studio/quizzes/:scope/:id/import) as a browser without
// JavaScript sends it: a multipart form with the text pasted or a file, into the quiz or the
// course's bank; a refused import lists each problem with its line in the page's language and
// writes nothing. And the quiz form's draw settings.

/** A multipart body of text fields and an optional file, as a browser sends the form. */
function multipart(fields: Record<string, string>, file?: { name: string; text: string }) {
  const boundary = '----import-test-boundary';
  const parts = Object.entries(fields).map(
    ([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
  );
  if (file)
    parts.push(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\nContent-Type: text/plain\r\n\r\n${file.text}\r\n`,
    );
  return { payload: Buffer.from(`${parts.join('')}--${boundary}--\r\n`), type: `multipart/form-data; boundary=${boundary}` };
}

t.test('import into the quiz and the bank, refusals in the page language, draw settings, attackers', async (t) => {
  const { app, db, teacher, created, courseId, institutionId } = await teacherWithSampleCourse(t);
  const chapter = created.body.document.modules[0].chapters[0];
  const url = `/dashboard/studio/quizzes/chapter/${chapter.id}/import`;
  const send = async (cookie: string, fields: Record<string, string>, file?: { name: string; text: string }, origin = OWN_ORIGIN) => {
    const { payload, type } = multipart(fields, file);
    const res = await app.inject({ method: 'POST', url, headers: { cookie, 'content-type': type, origin }, payload });
    return { status: res.statusCode, body: res.body, location: res.headers.location as string | undefined };
  };
  const count = async (table: 'questions' | 'bank_questions') =>
    Number(
      (
        await db.db.execute(
          table === 'questions'
            ? sql`select count(*)::int as n from questions where quiz_id = ${chapter.quiz.id}`
            : sql`select count(*)::int as n from bank_questions where course_id = ${courseId}`,
        )
      ).rows[0]!.n,
    );
  const en = await browserOf(app, teacher.id, 'en');
  const id = await browserOf(app, teacher.id, 'id');

  const quizPage = await id.get(`/dashboard/studio/quizzes/chapter/${chapter.id}`);
  t.match(quizPage.body, /Jumlah soal acak dari bank soal/, 'the quiz form has the draw settings, in Indonesian');
  t.match(quizPage.body, new RegExp(`href="${url}"`), 'and links to the import page');
  const page = await id.get(url);
  t.equal(page.status, 200);
  t.match(page.body, /enctype="multipart\/form-data"/);
  t.match(page.body, /Bank soal masih kosong/);
  t.match((await en.get(url)).body, /The question bank is empty/);

  const before = await count('questions');
  const pasted = await send(id.cookie, { target: 'quiz', format: 'gift', tags: '', text: 'Satu {=a ~b}\n\nDua {T}\n\nTiga {=ya}' });
  t.equal(pasted.status, 303, pasted.body.slice(0, 500));
  t.match(pasted.location, /import\?imported=3$/);
  t.equal(await count('questions'), before + 3, 'the quiz gained 3 questions');
  t.match((await id.get(pasted.location!)).body, /3 soal diimpor/);

  const csv = 'question;a;b;answer;tags\r\nApa itu aset?;Sumber daya;Utang;A;dasar\r\n';
  const filed = await send(id.cookie, { target: 'bank', format: 'csv', tags: 'Bab-1', text: '' }, { name: 'soal.csv', text: csv });
  t.equal(filed.status, 303, filed.body.slice(0, 500));
  const tags = await db.db.execute(sql`select tags from bank_questions where course_id = ${courseId}`);
  t.same(tags.rows[0]!.tags, ['bab-1', 'dasar'], 'from the file, with the form’s tags and the row’s');

  const bad = 'Baik {=a ~b}\n\nBerapa? {#4}\n\nRusak {=a ~b\n';
  const refusedId = await send(id.cookie, { target: 'quiz', format: 'gift', text: bad });
  t.equal(refusedId.status, 422);
  t.match(refusedId.body, /Impor ditolak, tidak ada yang ditulis/);
  t.match(refusedId.body, /Baris 3: Jenis soal ini tidak didukung \(numeric\)/);
  t.match(refusedId.body, /Baris 5: Blok jawaban \{ tidak ditutup dengan \}/);
  t.notMatch(refusedId.body, /numeric questions are not supported|is not closed/, 'no English sentence on the Indonesian page');
  t.equal(fieldValue(refusedId.body, 'text'), bad, 'what was typed is kept');
  const refusedEn = await send(en.cookie, { target: 'quiz', format: 'gift', text: bad });
  t.match(refusedEn.body, /Line 3: This kind of question is not supported \(numeric\)/);
  t.equal(await count('questions'), before + 3, 'nothing written by a refused import');
  t.match(
    (await send(id.cookie, { target: 'bank', format: 'aiken', tags: 'bukan tag!', text: 'Q\nA. x\nB. y\nANSWER: A' })).body,
    /Tag: 1–40 huruf/,
  );
  t.match((await send(id.cookie, { target: 'bank', format: 'aiken', text: '  ' })).body, /Tempel soal atau pilih berkas/);
  const nul = await send(id.cookie, { target: 'bank', format: 'gift', text: 'x' }, { name: 'a.bin', text: 'Q {=a ~b}\u0000' });
  t.equal(nul.status, 422);
  t.match(nul.body, /Baris 1: Teks memuat karakter NUL/);

  // The quiz form's draw settings are saved with the quiz.
  const form = (await id.get(`/dashboard/studio/quizzes/chapter/${chapter.id}`)).body;
  const fields: Record<string, string> = {};
  for (const [, name, value] of form.matchAll(/name="([^"]+)"[^>]*value="([^"]*)"/g)) fields[name!] = value!;
  for (const [, name, value] of form.matchAll(/name="([^"]+)"[^>]*>([^<]*)<\/textarea>/g)) fields[name!] = value!;
  for (const [, name, value] of form.matchAll(/<select[^>]*name="([^"]+)"[^>]*>(?:(?!<\/select>).)*?<option value="([^"]*)" selected/gs))
    fields[name!] = value!;
  const saved = await id.post(`/dashboard/studio/quizzes/chapter/${chapter.id}`, {
    ...fields,
    drawCount: '1',
    drawTag: 'dasar',
    shuffleOptions: 'on',
    action: 'save',
  });
  t.equal(saved.status, 303, saved.body.slice(0, 800));
  const [stored] = (await db.db.execute(sql`select draw_count, draw_tag, shuffle_options from quizzes where id = ${chapter.quiz.id}`)).rows;
  t.same(stored, { draw_count: 1, draw_tag: 'dasar', shuffle_options: true });

  // Attackers: another institution's teacher, a member, a cross-site form.
  const outsider = await browserOf(
    app,
    (await makeUser(db.db, { role: 'teacher', institutionId: await makeInstitution(db.db, 'Lain') })).id,
  );
  t.equal((await send(outsider.cookie, { target: 'bank', format: 'gift', text: 'Q {=a ~b}' })).status, 404);
  t.equal((await outsider.get(url)).status, 404);
  const member = await browserOf(app, (await makeUser(db.db, { role: 'student', institutionId })).id);
  t.equal((await send(member.cookie, { target: 'bank', format: 'gift', text: 'Q {=a ~b}' })).status, 403);
  t.equal((await send(id.cookie, { target: 'bank', format: 'gift', text: 'Q {=a ~b}' }, undefined, 'https://evil.example')).status, 403);
  t.equal(await count('bank_questions'), 1, 'no attacker wrote to the bank');
});
