import { type CoursePath, type PathStep, stepAfter } from '../../domain/learning/course-path.js';
import type { PageContext } from '../i18n/index.js';
import { attr, type Html, href, html, type Url } from '../view/html.js';

/** A step's page: the chapter, or the quiz (its intro, which offers what the learner may do). */
export function stepHref(step: PathStep): Url {
  return step.kind === 'chapter' ? href('/learn/chapters', step.id) : href('/learn/quizzes', step.id);
}

/** A step's name as shown: a chapter's own, a quiz's with "Kuis:" unless it says so already. */
export function stepName(ctx: PageContext, step: PathStep): string {
  if (step.kind === 'chapter') return step.name;
  return step.kind === 'final' ? ctx.t.path.examLabel(step.name) : ctx.t.path.quizLabel(step.name);
}

/**
 * One step of the outline: a link when the person may open it (done or open, or any step in a
 * manager's preview), otherwise its name as plain text with what opens it, never a link to a
 * refusal.
 */
function stepItem(ctx: PageContext, path: CoursePath, step: PathStep, current: { kind: 'chapter' | 'quiz'; id: number } | null): Html {
  const { t } = ctx;
  const here = current !== null && current.id === step.id && (current.kind === 'chapter') === (step.kind === 'chapter');
  const name = stepName(ctx, step);
  const mark = step.state === 'done' ? html` <span class="badge completed">✓ ${t.path.done}</span>` : '';
  const youAreHere = here && html` <span class="here">${t.path.youAreHere}</span>`;
  if (path.mode === 'preview')
    return html`<li ${attr('aria-current', here && 'step')}><a href="${stepHref(step)}">${name}</a>${
      step.state === 'locked' && html` <span class="muted">(${t.path.manager.lockedForNew})</span>`
    }${youAreHere}</li>
`;
  if (step.state === 'locked')
    return html`<li class="step-locked" ${attr('aria-current', here && 'step')}><span>${name}</span> <span class="badge locked">${t.path.locked}</span><span class="reason">${t.path.waitsFor(path.waitingFor)}</span>${youAreHere}</li>
`;
  return html`<li ${attr('aria-current', here && 'step')}><a href="${stepHref(step)}">${name}</a>${mark}${youAreHere}</li>
`;
}

/** The course outline beside a chapter or quiz page (or on the course and preview pages): modules, their steps, the final exam. */
export function outline(ctx: PageContext, path: CoursePath, current: { kind: 'chapter' | 'quiz'; id: number } | null): Html {
  const { t } = ctx;
  const modules = path.modules.map(
    (m) => html`<li><span class="module">${m.name}</span>
<ol>${m.steps.map((s) => stepItem(ctx, path, s, current))}</ol></li>
`,
  );
  return html`<aside class="outline" aria-labelledby="outline-heading"><h2 id="outline-heading">${t.path.outline}</h2>
<ol>${modules}${path.final && stepItem(ctx, path, path.final, current)}</ol>
</aside>`;
}

/** The quiz the learner can no longer take, which keeps what follows it locked (undefined: none). */
export function blockingStep(path: CoursePath) {
  return [...path.modules.flatMap((m) => m.steps), ...(path.final ? [path.final] : [])].find((s) => s.outOfAttempts);
}

/**
 * "Continue where you left off": the first open step not done (a link), or what is left and who
 * can help when the learner cannot go on alone (out of attempts: `contact` names them, ./contact.ts),
 * or that the course is finished.
 */
export function continueBox(ctx: PageContext, path: CoursePath, contact: Html | false = false): Html {
  const { t } = ctx;
  const next = path.continueAt;
  let content: Html;
  if (path.finished) content = html`<p>${t.path.finished}</p>`;
  else if (next === null) content = html`<p>${t.path.waitsFor(path.waitingFor)}</p>`;
  else {
    const left = path.allChaptersDone && path.final && path.final.state !== 'done' && html`<p>${t.path.finalLeft(path.final.name)}</p>`;
    // A quiz the learner can no longer take keeps what follows it locked: said wherever it stands.
    const blocked = blockingStep(path);
    const stuck = blocked && html`<p class="warning">${t.path.stuck(blocked.name)}</p>${contact}`;
    content = html`${left}${stuck}<p><a href="${stepHref(next)}">${t.path.continueTo(stepName(ctx, next))}</a></p>`;
  }
  return html`<section class="card" aria-labelledby="continue"><h2 id="continue">${t.path.continueHeading}</h2>${content}</section>`;
}

/**
 * The way on from a step: the next step as a link when it is open (or done), else its name with
 * what opens it; a chapter whose own quiz is passed goes on past that quiz.
 */
export function nextStepBox(ctx: PageContext, path: CoursePath, from: PathStep): Html {
  const { t } = ctx;
  let next = stepAfter(path, from);
  if (next && from.kind === 'chapter' && next.kind === 'chapter-quiz' && next.state === 'done') next = stepAfter(path, next);
  let content: Html;
  if (next === null) content = html`<p>${path.finished ? t.path.finished : t.path.lastStep}</p>`;
  else if (path.mode === 'preview' || next.state !== 'locked')
    content = html`<p><a href="${stepHref(next)}">${
      from.kind === 'chapter' && next.kind === 'chapter-quiz' && path.mode === 'learner'
        ? t.path.takeChapterQuiz(next.name)
        : t.path.goTo(stepName(ctx, next))
    }</a></p>`;
  else content = html`<p class="step-locked">${t.path.nextIsLocked(stepName(ctx, next))} ${t.path.waitsFor(path.waitingFor)}</p>`;
  return html`<section aria-labelledby="next-step"><h2 id="next-step">${t.path.nextStep}</h2>${content}</section>`;
}
