import { BANK_TAG, IMPORT_FORMATS, type ImportFormat } from '@lms/contracts';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  ImportRefusedError,
  AUTHORING_OPERATIONS as op,
  QUIZ_SCOPES,
  quizForEditor,
  readQuestionBank,
} from '../../domain/authoring/index.js';
import type { PageContext } from '../i18n/index.js';
import { type Html, href, html } from '../view/html.js';
import type { FieldErrors, FormValues } from './forms.js';
import { type App, type Asked, changed, getPage, Id, postForm } from './screen.js';
import { field, flash } from './views.js';

// Importing questions from the quiz editor (/dashboard/studio/quizzes/:scope/:id/import): GIFT,
// Aiken or CSV, pasted or as a file (multipart/form-data, no JavaScript needed), into this quiz
// or into the course's question bank, by the importQuestions operation (all or nothing: each
// problem is listed with its line, in the page's language). Also the quiz form's draw settings.

const QuizParams = z.object({ scope: z.enum(QUIZ_SCOPES), id: Id });
type Place = z.infer<typeof QuizParams>;
const placeOf = (request: FastifyRequest) => request.params as Place;
type Upload = FastifyRequest & { tooLarge?: boolean };

/** The problems the page lists at most (the API's answer names as many). */
const SHOWN = 20;

/** The quiz form's draw settings: how many bank questions each attempt draws, from which tag, and the shuffle. */
export function drawFields(ctx: PageContext, values: FormValues, errors: FieldErrors): Html {
  const w = ctx.t.studio.questionImport;
  return html`${field(w.drawCount, 'drawCount', values, errors, { type: 'number', hint: w.drawHint })}
${field(w.drawTag, 'drawTag', values, errors)}
${field(w.shuffleOptions, 'shuffleOptions', values, errors, { type: 'checkbox' })}`;
}

function importPage(
  ctx: PageContext,
  p: Place,
  quizName: string | null,
  bankSize: number,
  values: FormValues,
  errors: FieldErrors,
  note: Html | false,
) {
  const w = ctx.t.studio.questionImport;
  const targets: [string, string][] = [
    ...(quizName === null ? [] : [['quiz', w.toQuiz(quizName)] as [string, string]]),
    ['bank', w.toBank],
  ];
  const formats = IMPORT_FORMATS.map((f) => [f, w.formats[f]] as [string, string]);
  const action = href('/dashboard/studio/quizzes', p.scope, p.id, 'import');
  return html`${note}
<h2>${w.title}</h2>
<p>${w.intro}</p>
<p class="muted">${bankSize === 0 ? w.empty : w.bankCount(ctx.f.number(bankSize))}</p>
<form method="post" action="${action}" enctype="multipart/form-data" class="card stack">
${field(w.target, 'target', values, errors, { choices: targets })}
${field(w.format, 'format', values, errors, { choices: formats, hint: w.formatHelp })}
${field(w.tags, 'tags', values, errors)}
${field(w.text, 'text', values, errors, { textarea: 12 })}
<p class="field"><label for="f-file">${w.file}</label> <input id="f-file" type="file" name="file" accept=".txt,.gift,.csv,text/plain,text/csv"></p>
<button type="submit">${w.submit}</button>
</form>
<p><a href="${href('/dashboard/studio/quizzes', p.scope, p.id)}">${ctx.t.studio.quiz.title(quizName ?? '')}</a></p>`;
}

/** The form's fields and its file's text (UTF-8), read from the multipart body; null when a part is over its limit. */
async function readForm(request: FastifyRequest): Promise<FormValues | null> {
  const values: FormValues = {};
  for await (const part of request.parts()) {
    if (part.type === 'file') {
      const bytes = await part.toBuffer();
      if (part.file.truncated) return null;
      if (bytes.length > 0) values.fileText = bytes.toString('utf8');
    } else {
      if (part.valueTruncated) return null;
      if (['target', 'format', 'tags', 'text'].includes(part.fieldname)) values[part.fieldname] = String(part.value);
    }
  }
  return values;
}

export default function questionImportScreen(app: App) {
  const uploadLimit = app.config.STUDIO_UPLOAD_LIMIT_BYTES;
  const mb = (ctx: PageContext) => ctx.f.number(Math.round((uploadLimit / (1024 * 1024)) * 10) / 10);
  const placeAt = async ({ request, actx }: Asked) => {
    const p = placeOf(request);
    const found = await quizForEditor(app.db, actx, p.scope, p.id);
    const bank = await readQuestionBank(app.db, actx, found.course.id);
    return { p, ...found, bankSize: bank.questions.length, quizName: found.quiz?.name ?? null };
  };

  return [
    getPage(
      '/studio/quizzes/:scope/:id/import',
      'Course studio: import questions (GIFT, Aiken, CSV)',
      async (asked) => {
        const { p, course, quizName, bankSize, label } = await placeAt(asked);
        const w = asked.ctx.t.studio.questionImport;
        const note =
          asked.query.imported !== undefined && /^\d{1,4}$/.test(asked.query.imported) && flash(w.imported(asked.query.imported));
        const values = { target: quizName === null ? 'bank' : 'quiz', format: 'gift' };
        return asked.show(course, 'outline', `${w.title}: ${label}`, importPage(asked.ctx, p, quizName, bankSize, values, {}, note));
      },
      QuizParams,
    ),

    postForm(
      '/studio/quizzes/:scope/:id/import',
      'Imports questions into a quiz or the course’s question bank (multipart/form-data: target, format, tags, text, file)',
      async (asked) => {
        const { p, course, quiz, quizName, bankSize, label } = await placeAt(asked);
        const { ctx, actx, request, reply } = asked;
        const w = ctx.t.studio.questionImport;
        const title = `${w.title}: ${label}`;
        let typed: FormValues = {};
        const again = (errors: FieldErrors, note: Html | false, status: number) =>
          asked.show(course, 'outline', title, importPage(ctx, p, quizName, bankSize, typed, errors, note), status);
        const tooLarge = () => {
          reply.header('connection', 'close');
          return again({}, flash(w.tooLarge(mb(ctx)), 'error'), 413);
        };
        if ((request as Upload).tooLarge) return tooLarge();
        if (!request.isMultipart()) return again({ text: w.noText }, flash(w.noText, 'error'), 422);
        let read: FormValues | null;
        try {
          read = await readForm(request);
        } catch (err) {
          if (
            ['FST_REQ_FILE_TOO_LARGE', 'FST_PARTS_LIMIT', 'FST_FILES_LIMIT', 'FST_FIELDS_LIMIT'].includes(
              (err as { code?: string }).code ?? '',
            )
          )
            return tooLarge();
          throw err;
        }
        if (read === null) return tooLarge();
        const { fileText, ...fields } = read;
        typed = { ...fields, text: fields.text ?? '' };
        const text = (fileText ?? '') !== '' ? (fileText as string) : (fields.text ?? '');
        if (text.trim() === '') return again({ text: w.noText }, flash(w.noText, 'error'), 422);
        const format = (IMPORT_FORMATS as readonly string[]).includes(fields.format ?? '') ? (fields.format as ImportFormat) : 'gift';
        const tags = (fields.tags ?? '').trim() === '' ? [] : (fields.tags ?? '').trim().toLowerCase().split(/\s+/);
        if (tags.length > 10 || tags.some((t) => !BANK_TAG.test(t))) return again({ tags: w.badTags }, flash(w.badTags, 'error'), 422);
        const intoQuiz = fields.target === 'quiz' && quiz !== null;
        try {
          const done = await op.importQuestions(app.db, actx, course.id, { format, text, tags, quizId: intoQuiz ? quiz.id : null });
          await changed(app, course.id);
          return asked.back(`/dashboard/studio/quizzes/${p.scope}/${p.id}/import?imported=${done.imported}`);
        } catch (err) {
          if (!(err instanceof ImportRefusedError)) throw err;
          const lines = err.problems.slice(0, SHOWN).map((problem) => (problem.line > 0 ? w.problem(problem) : w.whole(problem)));
          const rest = err.problems.length - SHOWN;
          const note = html`<div class="flash error" role="alert"><p>${w.refused}</p><ul>${lines.map((l) => html`<li>${l}</li>`)}</ul>${
            rest > 0 && html`<p>${w.more(ctx.f.number(rest))}</p>`
          }</div>`;
          return again({}, note, 422);
        }
      },
      QuizParams,
      {
        multipart: true,
        // A body announced larger than the upload limit (plus room for the other fields) is refused before it is read.
        onRequest: async (request) => {
          const length = Number(request.headers['content-length'] ?? 0);
          if (length > uploadLimit + 2 * 1024 * 1024) (request as Upload).tooLarge = true;
        },
      },
    ),
  ];
}
