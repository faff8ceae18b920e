import { EVIDENCE_ROLES, QUESTION_KINDS, type QuizOut } from '@lms/contracts';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  LearnersHoldError,
  AUTHORING_OPERATIONS as op,
  QUIZ_OPERATIONS,
  QUIZ_SCOPES,
  quizForEditor,
  StaleVersionError,
} from '../../domain/authoring/index.js';
import { EvidenceRoleTakenError } from '../../domain/authoring/evidence-roles.js';
import { BadRequestError, NotFoundError } from '../../errors.js';
import type { PageContext } from '../i18n/index.js';
import { type Html, href, html } from '../view/html.js';
import { type FieldErrors, type FormValues, quizBody, quizValues } from './forms.js';
import { quizLabel } from './field-labels.js';
import { drawFields } from './question-import.js';
import { quizRefusals } from './refusals.js';
import { type App, type Asked, changed, getPage, Id, postForm, studioPath, versionOf } from './screen.js';
import { field, flash, staleCompare } from './views.js';

// The quiz editor (/dashboard/studio/quizzes/:scope/:id): a chapter's quiz, a module's, or the
// course's final exam; its settings and questions as plain fields (more added a form at a time),
// saved by the put*Quiz operation of its scope at the version it was opened at, or deleted.

const QuizParams = z.object({ scope: z.enum(QUIZ_SCOPES), id: Id });
type Place = z.infer<typeof QuizParams>;
const placeOf = (request: FastifyRequest) => request.params as Place;

function quizPage(
  ctx: PageContext,
  p: Place,
  label: string,
  values: FormValues,
  errors: FieldErrors,
  note: Html | false,
  compare: Html | false = false,
  exists = true,
) {
  const s = ctx.t.studio;
  const qz = s.quiz;
  const count = Math.max(0, Math.min(200, Number(values.count ?? 0) || 0));
  const kinds = QUESTION_KINDS.map((k) => [k, qz.kinds[k]] as [string, string]);
  const roles: [string, string][] = [
    ['', qz.evidenceRoles.none],
    ...EVIDENCE_ROLES.filter((r) => p.scope !== 'final' || r !== 'pre_test').map((r) => [r, qz.evidenceRoles[r]] as [string, string]),
  ];
  const questions = Array.from(
    { length: count },
    (_, i) => html`<fieldset class="card question"><legend>${qz.question(i + 1)}</legend>
<input type="hidden" name="q${i}_id" value="${values[`q${i}_id`] ?? ''}">
${field(qz.kind, `q${i}_type`, values, errors, { choices: kinds })}
${field(qz.text, `q${i}_text`, values, errors, { textarea: 2 })}
${field(qz.options, `q${i}_options`, values, errors, { textarea: 4, hint: qz.trueFalseHint(s.editor.trueOption, s.editor.falseOption) })}
${field(qz.right, `q${i}_right`, values, errors)}
${field(qz.points, `q${i}_points`, values, errors, { type: 'number' })}
${field(qz.explanation, `q${i}_explanation`, values, errors, { textarea: 2 })}
</fieldset>`,
  );
  const action = href('/dashboard/studio/quizzes', p.scope, p.id);
  return html`${note}${compare}
<h2>${qz.title(p.scope === 'final' ? s.outline.finalExam : label)}</h2>
<form method="post" action="${action}" class="stack quiz-form" data-true-false="${JSON.stringify([s.editor.trueOption, s.editor.falseOption])}" data-add-question="${JSON.stringify({ label: s.editor.addQuestion, legend: qz.question(0) })}">
<input type="hidden" name="version" value="${values.version ?? '0'}">
<input type="hidden" name="count" value="${String(count)}">
${field(qz.name, 'name', values, errors, { required: true })}
${field(qz.description, 'description', values, errors, { textarea: 2 })}
${field(p.scope === 'final' ? qz.finalPassMark : qz.minimumScore, 'minimumScore', values, errors, { type: 'number' })}
${field(qz.timeLimit, 'timeLimit', values, errors, { type: 'number' })}
${field(qz.maxAttempts, 'maxAttempts', values, errors, { type: 'number' })}
${field(qz.evidenceRole, 'evidenceRole', values, errors, { choices: roles, hint: qz.evidenceRoleHint })}
${drawFields(ctx, values, errors)}
<p class="muted">${qz.blankRemoves}</p>
${questions}
<p><button type="submit" name="action" value="save">${s.save}</button> <button type="submit" name="action" value="more" class="secondary">${qz.moreQuestions}</button></p>
</form>
${exists && html`<p><a href="${href('/dashboard/studio/quizzes', p.scope, p.id, 'import')}">${s.questionImport.link}</a></p>`}
${exists && html`<p><a href="${href('/dashboard/studio/quizzes', p.scope, p.id, 'delete')}" class="danger-link">${qz.remove}</a></p>`}`;
}

export default function quizScreen(app: App) {
  /** The quiz the path names, as its editor opens it. */
  const quizAt = ({ request, actx }: Asked) => {
    const p = placeOf(request);
    return quizForEditor(app.db, actx, p.scope, p.id).then((found) => ({ p, ...found }));
  };

  return [
    getPage(
      '/studio/quizzes/:scope/:id',
      'Course studio: quiz editor',
      async (asked) => {
        const { p, course, quiz, label, version } = await quizAt(asked);
        const values = quizValues(quiz, version, quiz === null || quiz.questions.length === 0 ? 1 : 0);
        // A new final exam starts at the course's pass mark, the one it is graded by (rules/pass-mark.ts).
        if (p.scope === 'final' && quiz === null) values.minimumScore = String(course.min_passing_score);
        const { ctx } = asked;
        const note = asked.query.saved === '1' && flash(ctx.t.studio.saved);
        const body = quizPage(ctx, p, label, values, {}, note, false, quiz !== null);
        return asked.show(course, 'outline', ctx.t.studio.quiz.title(label), body);
      },
      QuizParams,
    ),

    postForm(
      '/studio/quizzes/:scope/:id',
      'Saves a quiz',
      async (asked) => {
        const { p, course, quiz, label } = await quizAt(asked);
        const { ctx, actx } = asked;
        const typed = { ...asked.form };
        const s = ctx.t.studio;
        const again = (page: Html, status: number) => asked.show(course, 'outline', s.quiz.title(label), page, status);
        const problem = (errors: FieldErrors, note: Html | false, compare: Html | false = false) =>
          quizPage(ctx, p, label, typed, errors, note, compare, quiz !== null);
        const { body, errors } = quizBody(typed, ctx.t.formErrors, [s.editor.trueOption, s.editor.falseOption]);
        if (!body) return again(problem(errors, flash(s.fixBelow, 'error')), 422);
        let saved: { quiz: QuizOut; version: number };
        try {
          saved = await op[QUIZ_OPERATIONS[p.scope].put](app.db, actx, p.id, body, versionOf(typed) ?? 0);
        } catch (err) {
          if (err instanceof StaleVersionError) {
            const stored = quizValues(err.stored as QuizOut | null, err.current, 0);
            const keys = [...new Set([...Object.keys(stored), ...Object.keys(typed)])].filter(
              (k) => !['version', 'count', 'action'].includes(k) && !k.endsWith('_id'),
            );
            const compare = staleCompare(
              ctx,
              stored,
              typed,
              keys,
              { holds: 'yours', latest: href('/dashboard/studio/quizzes', p.scope, p.id) },
              (k) => quizLabel(ctx, k),
            );
            typed.version = String(err.current);
            return again(problem({}, false, compare), 409);
          }
          if (err instanceof BadRequestError) return again(problem(quizRefusals(ctx, err), flash(s.fixBelow, 'error')), 422);
          // Another quiz of the course holds the role (evidence-roles.ts): said next to the field.
          if (err instanceof EvidenceRoleTakenError)
            return again(problem({ evidenceRole: ctx.t.formErrors.quiz.roleTaken(err.other.name) }, flash(s.fixBelow, 'error')), 409);
          throw err;
        }
        await changed(app, course.id);
        if (typed.action === 'more') {
          const values = quizValues(saved.quiz, saved.version, 1);
          return again(quizPage(ctx, p, label, values, {}, flash(s.saved)), 200);
        }
        return asked.back(`/dashboard/studio/quizzes/${p.scope}/${p.id}?saved=1`);
      },
      QuizParams,
    ),

    getPage(
      '/studio/quizzes/:scope/:id/delete',
      'Course studio: confirm deleting a quiz',
      async (asked) => {
        const { p, course, quiz } = await quizAt(asked);
        if (quiz === null) throw new NotFoundError('There is no quiz here');
        const c = asked.ctx.t.studio.confirm;
        const details = { lines: [c.questions(quiz.questions.length)] };
        const action = href('/dashboard/studio/quizzes', p.scope, p.id, 'delete');
        return asked.confirmDelete(course, 'outline', c.quiz(quiz.name), details, action, href('/dashboard/studio/quizzes', p.scope, p.id));
      },
      QuizParams,
    ),

    postForm(
      '/studio/quizzes/:scope/:id/delete',
      'Deletes a quiz',
      async (asked) => {
        const { p, course } = await quizAt(asked);
        try {
          await op[QUIZ_OPERATIONS[p.scope].remove](app.db, asked.actx, p.id);
        } catch (err) {
          if (err instanceof LearnersHoldError) return asked.back(studioPath(course.id, '/outline?held=1'));
          throw err;
        }
        await changed(app, course.id);
        return asked.back(studioPath(course.id, '/outline?saved=1'));
      },
      QuizParams,
    ),
  ];
}
