import { QuestionInput } from '@lms/contracts';
import t from 'tap';
import { parseQuestions } from '../../../src/domain/authoring/question-import/index.js';

// CI runs this file once (not again in the PostgreSQL pass): the parsers touch no database.

// The three import formats, parsed: what each question becomes, and each refusal with its line.
// Every question a parser returns must also be a valid QuestionInput (what the bank write takes).

const valid = (questions: { tags: string[]; line: number }[]) =>
  questions.every(({ tags: _t, line: _l, ...q }) => QuestionInput.safeParse(q).success);

t.test('GIFT: choice, true/false, short answer, titles, comments, feedback, escapes, categories', async (t) => {
  const text = [
    '// a comment line',
    '$CATEGORY: $course$/Etika Profesi',
    '::Q1:: Siapa yang menandatangani laporan audit? {',
    '  =Akuntan publik#benar',
    '  ~Direksi#salah',
    '  ~Komisaris',
    '  ####Laporan audit ditandatangani oleh akuntan publik.',
    '}',
    '',
    '::Q2:: Laba \\= pendapatan \\- beban? {T}',
    '',
    'Pilih yang merupakan aset \\{lancar\\}: {~%50%Kas ~%50%Piutang ~%-100%Gedung}',
    '',
    'Singkatan dari PSAK adalah {=Pernyataan Standar Akuntansi Keuangan}',
    '',
    '[markdown]Ibu kota {~Bandung =Jakarta ~Surabaya} adalah kota terbesar.',
  ].join('\n');
  const { questions, problems } = parseQuestions('gift', text);
  t.same(problems, []);
  t.equal(questions.length, 5);
  const [q1, q2, q3, q4, q5] = questions;
  t.match(q1, {
    line: 3,
    questionType: 'multiple_choice',
    questionText: 'Siapa yang menandatangani laporan audit?',
    options: [
      { id: 'a', text: 'Akuntan publik', isCorrect: true },
      { id: 'b', text: 'Direksi', isCorrect: false },
      { id: 'c', text: 'Komisaris', isCorrect: false },
    ],
    explanation: 'Laporan audit ditandatangani oleh akuntan publik.',
    tags: ['etika-profesi'],
  });
  t.match(q2, {
    questionType: 'true_false',
    questionText: 'Laba = pendapatan \\- beban?',
    options: [{ isCorrect: true }, { isCorrect: false }],
  });
  t.match(q3, { questionType: 'multiple_answer', questionText: 'Pilih yang merupakan aset {lancar}:' });
  t.same(
    q3.options.map((o) => o.isCorrect),
    [true, true, false],
  );
  t.match(q4, { questionType: 'short_answer', correctAnswer: 'Pernyataan Standar Akuntansi Keuangan', options: [] });
  t.match(q5, {
    questionText: 'Ibu kota _____ adalah kota terbesar.',
    options: [{ isCorrect: false }, { isCorrect: true }, { isCorrect: false }],
  });
  t.ok(valid(questions), 'every parsed question is a valid QuestionInput');
});

t.test('GIFT: {F} and FALSE are false; unsupported kinds are named per question, with their line', async (t) => {
  const text = [
    'Bumi datar. {F}',
    '',
    'Berapa 2+2? {#4}',
    '',
    'Pasangkan. {=Jakarta -> Indonesia =Tokyo -> Jepang}',
    '',
    'Tulis esai. {}',
    '',
    'Sebutkan warna. {=merah =biru}',
    '',
    'Langit biru. {TRUE}',
  ].join('\n');
  const { questions, problems } = parseQuestions('gift', text);
  t.same(
    problems.map((p) => [p.line, p.code, p.detail]),
    [
      [3, 'unsupported_type', 'numeric'],
      [5, 'unsupported_type', 'matching'],
      [7, 'unsupported_type', 'essay'],
      [9, 'unsupported_type', 'short answer, several answers'],
    ],
  );
  t.same(
    questions.map((q) => q.options.find((o) => o.isCorrect)?.text),
    ['Salah', 'Benar'],
  );
});

t.test('GIFT: broken braces and answers name the line', async (t) => {
  t.match(parseQuestions('gift', 'Satu {=a ~b}\n\nDua {=a ~b\n~c\n\nTiga {=x ~y}').problems, [{ line: 3, code: 'unclosed_brace' }]);
  t.match(parseQuestions('gift', 'Satu {=a {~b}}').problems, [{ line: 1, code: 'stray_brace' }]);
  t.match(parseQuestions('gift', 'Tanpa jawaban').problems, [{ line: 1, code: 'no_answer_block' }]);
  t.match(parseQuestions('gift', 'Q {~a ~b}').problems, [{ line: 1, code: 'no_right_answer' }]);
  t.match(parseQuestions('gift', 'Q {=a =b ~c}').problems, [{ line: 1, code: 'bad_answer' }]);
  t.match(parseQuestions('gift', 'Q {teks =a ~b}').problems, [{ line: 1, code: 'bad_answer' }]);
  const many = `Q {=a ${Array.from({ length: 11 }, (_, i) => `~o${i}`).join(' ')}}`;
  t.match(parseQuestions('gift', many).problems, [{ line: 1, code: 'too_many_options' }]);
});

t.test('GIFT: crafted input is bounded: NUL, size, lines, deep braces, many questions', async (t) => {
  t.match(parseQuestions('gift', 'Q {=a ~b}\n\nR\u0000 {=a ~b}').problems, [{ line: 3, code: 'nul' }]);
  t.match(parseQuestions('gift', 'x'.repeat(1_000_001)).problems, [{ line: 0, code: 'too_long' }]);
  t.match(parseQuestions('gift', '\n'.repeat(60_000)).problems, [{ line: 0, code: 'too_many_lines' }]);
  const deep = `Q ${'{'.repeat(200_000)}${'}'.repeat(200_000)}`;
  t.match(parseQuestions('gift', deep).problems, [{ line: 1, code: 'stray_brace' }], 'deep braces: one error, no recursion');
  const lots = Array.from({ length: 501 }, (_, i) => `Q${i} {=a ~b}`).join('\n\n');
  const r = parseQuestions('gift', lots);
  t.match(r.problems, [{ code: 'too_many_questions', line: 1001 }]);
  t.match(parseQuestions('gift', '   \n  ').problems, [{ code: 'empty' }]);
});

t.test('Aiken: options, ANSWER, several questions; each mistake with its line', async (t) => {
  const text = [
    'Apa kepanjangan IAI?',
    'A. Ikatan Akuntan Indonesia',
    'B) Institut Akuntansi Indonesia',
    'ANSWER: A',
    '',
    'Standar mana yang berlaku untuk UMKM?',
    'A. PSAK 1',
    'B. SAK EMKM',
    'C. IFRS',
    'ANSWER: b',
  ].join('\r\n');
  const { questions, problems } = parseQuestions('aiken', text);
  t.same(problems, []);
  t.same(
    questions.map((q) => [q.line, q.questionType, q.options.length, q.options.findIndex((o) => o.isCorrect)]),
    [
      [1, 'multiple_choice', 2, 0],
      [6, 'multiple_choice', 3, 1],
    ],
  );
  t.ok(valid(questions));
  t.match(parseQuestions('aiken', 'Q\nA. x\nB. y\nANSWER: D').problems, [{ line: 4, code: 'bad_answer' }]);
  t.match(parseQuestions('aiken', 'Q\nA. x\nC. y\nANSWER: A').problems, [{ line: 3, code: 'bad_answer' }]);
  t.match(parseQuestions('aiken', 'Q\nA. x\nB. y\n\nR\nA. x\nB. y\nANSWER: A').problems, [{ line: 1, code: 'missing_answer' }]);
  t.match(parseQuestions('aiken', 'Q\nA. x\nANSWER: A').problems, [{ line: 1, code: 'too_few_options' }]);
  t.match(parseQuestions('aiken', 'ANSWER: A').problems, [{ line: 1, code: 'bad_answer' }]);
});

t.test('CSV: Excel files (BOM, semicolons, CRLF, quoted line breaks), every kind, formulas kept as text', async (t) => {
  const text = [
    '\uFEFFQuestion;Type;A;B;C;Answer;Points;Tags;Explanation',
    '"Apa itu ""aset""?";;Sumber daya;Kewajiban;Modal;A;2;dasar neraca;',
    '"Pilih dua:\r\nyang benar";multiple_answer;Kas;Utang;Piutang;A C;1;;',
    'Laba selalu positif.;true_false;;;;salah;;;Tidak selalu.',
    'PSAK singkatan dari?;short_answer;;;;Pernyataan Standar Akuntansi Keuangan;;;',
    '=SUM(A1:A2);;=1+1;@x;;b;;;',
  ].join('\r\n');
  const { questions, problems } = parseQuestions('csv', text);
  t.same(problems, []);
  t.same(
    questions.map((q) => [q.line, q.questionType, q.points]),
    [
      [2, 'multiple_choice', 2],
      [3, 'multiple_answer', 1],
      [5, 'true_false', 1],
      [6, 'short_answer', 1],
      [7, 'multiple_choice', 1],
    ],
  );
  t.equal(questions[0].questionText, 'Apa itu "aset"?');
  t.same(questions[0].tags, ['dasar', 'neraca']);
  t.equal(questions[1].questionText, 'Pilih dua:\r\nyang benar');
  t.same(
    questions[1].options.map((o) => o.isCorrect),
    [true, false, true],
  );
  t.match(questions[2], {
    options: [
      { text: 'Benar', isCorrect: false },
      { text: 'Salah', isCorrect: true },
    ],
    explanation: 'Tidak selalu.',
  });
  t.match(questions[4], { questionText: '=SUM(A1:A2)', options: [{ text: '=1+1' }, { text: '@x', isCorrect: true }] });
  t.ok(valid(questions));
});

t.test('CSV: a wrong header, cell or quote names its line', async (t) => {
  t.match(parseQuestions('csv', 'pertanyaan,jawaban\nQ,A').problems, [{ line: 1, code: 'bad_header' }]);
  t.match(parseQuestions('csv', 'question,a,b,answer\nQ,x,y,A\nR,x,y,C').problems, [{ line: 3, code: 'bad_answer' }]);
  t.match(parseQuestions('csv', 'question,type,a,b,answer\nQ,essay,x,y,A').problems, [{ line: 2, code: 'bad_type' }]);
  t.match(parseQuestions('csv', 'question,a,b,answer,points\nQ,x,y,A,-1').problems, [{ line: 2, code: 'bad_points' }]);
  t.match(parseQuestions('csv', 'question,a,b,answer\nQ,x,y,A\n"R,x,y,A').problems, [{ line: 3, code: 'bad_quote' }]);
  t.match(parseQuestions('csv', 'question,a,b,answer\nQ,x,y,').problems, [{ line: 2, code: 'missing_answer' }]);
  t.match(parseQuestions('csv', 'question,type,answer\nQ,true_false,mungkin').problems, [{ line: 2, code: 'bad_answer' }]);
});
