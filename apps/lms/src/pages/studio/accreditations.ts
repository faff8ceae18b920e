import type { CourseRow } from '../../domain/authoring/index.js';
import {
  type Accreditation,
  type AccreditationInput,
  type AccreditationProblem,
  accreditationState,
  courseAccreditationList,
  mayAccredit,
} from '../../domain/evidence/accreditations.js';
import { listSchemes } from '../../domain/evidence/schemes.js';
import type { PageContext } from '../i18n/index.js';
import { type Html, href, html } from '../view/html.js';
import type { FormValues } from './forms.js';
import type { App, Asked } from './screen.js';
import { field, flash } from './views.js';

// The course's accreditations on the studio's settings screen (docs/authoring.md,
// "Accreditations"): read-only for every author, with the line that only an institution admin
// records them; for an admin of the course's institution or a super_admin, a form that records
// one through the API's own domain function (domain/evidence/accreditations.ts), which checks
// who asks and every bound again.

const str = (v: unknown) => (typeof v === 'string' ? v : '');

/** The form's strings as the domain's input; the domain says what is wrong with them (422). */
export function accreditationInput(form: FormValues): AccreditationInput {
  const value = str(form.value).trim().replace(',', '.');
  return {
    scheme: str(form.scheme).trim().toUpperCase(),
    reference: str(form.reference),
    validFrom: str(form.validFrom).trim(),
    validUntil: str(form.validUntil).trim() === '' ? null : str(form.validUntil).trim(),
    value: value === '' ? Number.NaN : Number(value),
    professions: str(form.professions)
      .split(',')
      .map((p) => p.trim())
      .filter((p) => p !== ''),
  };
}

/** A refused accreditation in the page's words: the field at fault (or `form`) and what to do. */
export function accreditationRefusal(ctx: PageContext, problem: AccreditationProblem): { field: string; message: string } {
  const r = ctx.t.studio.evidence.refused;
  const n = (x: number) => ctx.f.number(x);
  switch (problem.code) {
    case 'reference':
      return { field: 'reference', message: r.reference };
    case 'date':
      return { field: problem.field, message: r.date };
    case 'untilBeforeFrom':
      return { field: 'validUntil', message: r.untilBeforeFrom };
    case 'professions':
      return { field: 'professions', message: r.professions };
    case 'value':
      return { field: 'value', message: r.value };
    case 'unknownScheme':
      return { field: 'scheme', message: r.unknownScheme(problem.scheme) };
    case 'overSchemeMax':
      return { field: 'value', message: r.overSchemeMax(n(problem.max), problem.unit, problem.scheme) };
    case 'overMinutes':
      return { field: 'value', message: r.overMinutes(n(problem.bound), problem.unit, n(problem.minutes), n(problem.minutesPerUnit)) };
    case 'duplicate':
      return { field: 'reference', message: r.duplicate(problem.reference, problem.scheme) };
    case 'creditsEarned':
      return { field: 'form', message: r.creditsEarned(n(problem.earned)) };
  }
}

function table(ctx: PageContext, list: readonly Accreditation[], now: Date): Html {
  const w = ctx.t.studio.evidence;
  if (list.length === 0) return html`<p>${w.noAccreditation}</p>`;
  const c = w.columns;
  const rows = list.map(
    (a) => html`<tr><td data-label="${c.scheme}">${a.scheme}</td><td data-label="${c.reference}">${a.reference}</td>
<td data-label="${c.validity}">${ctx.f.day(a.validFrom)} – ${a.validUntil === null ? w.openEnded : ctx.f.day(a.validUntil)}</td>
<td data-label="${c.value}" class="num">${ctx.f.number(a.value)}</td><td data-label="${c.state}">${w.states[accreditationState(a, now)]}</td></tr>`,
  );
  return html`<div class="table-wrap"><table class="responsive accreditations"><thead><tr><th>${c.scheme}</th><th>${c.reference}</th><th>${c.validity}</th><th>${c.value}</th><th>${c.state}</th></tr></thead>
<tbody>${rows}</tbody></table></div>`;
}

/**
 * The accreditations part of the settings screen. `typed` and `problem`: a refused record form
 * shown again with what was typed and why.
 */
export async function accreditationsPart(
  app: App,
  { ctx, actx, query }: Pick<Asked, 'ctx' | 'actx' | 'query'>,
  course: CourseRow,
  typed: FormValues = {},
  problem: AccreditationProblem | null = null,
): Promise<Html> {
  const w = ctx.t.studio.evidence;
  const now = app.clock();
  const list = await courseAccreditationList(app.db, course.id);
  let form: Html | false = false;
  if (mayAccredit(actx.author)) {
    const schemes = (await listSchemes(app.db)).map((s) => [s.code, `${s.code}: ${s.body}`] as [string, string]);
    const values = { scheme: course.credit_scheme, ...typed };
    const c = w.columns;
    const refusal = problem === null ? null : accreditationRefusal(ctx, problem);
    const errors: Record<string, string> = refusal ? { [refusal.field]: refusal.message } : {};
    form = html`<form method="post" action="${href('/dashboard/studio/courses', course.id, 'accreditations')}" class="stack">
<h3>${w.record}</h3>
${refusal && flash(refusal.field === 'form' ? refusal.message : ctx.t.studio.fixBelow, 'error')}
${field(c.scheme, 'scheme', values, errors, { choices: schemes })}
${field(c.reference, 'reference', values, errors, { required: true })}
${field(w.validFrom, 'validFrom', values, errors, { type: 'date', required: true })}
${field(w.validUntil, 'validUntil', values, errors, { type: 'date' })}
${field(c.value, 'value', values, errors)}
${field(w.professions, 'professions', values, errors)}
<button type="submit">${w.record}</button>
</form>`;
  }
  return html`<section id="accreditations" class="card"><h2>${w.accreditations}</h2>
${query.recorded === '1' && flash(w.recorded)}
<p class="muted">${w.onlyAdmin}</p>
${table(ctx, list, now)}
${form}
</section>`;
}
