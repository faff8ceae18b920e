import type { ChecklistItem } from '@lms/contracts';
import type { CourseRow } from '../../domain/authoring/authors.js';
import type { QuizReadiness } from '../../domain/authoring/index.js';
import type { PageContext } from '../i18n/index.js';
import { attr, type Html, href, html, join } from '../view/html.js';
import { checklistWords } from './change-words.js';
import { settingsLabel } from './field-labels.js';
import type { FieldErrors, FormValues } from './forms.js';

type Href = ReturnType<typeof href>;

// The pieces every studio page is made of: the course's header and tabs, a flash, form fields
// that show what was typed and the problem next to the field.

export type StudioTab = 'overview' | 'settings' | 'outline' | 'pictures' | 'history';

export function studioHeader(ctx: PageContext, course: CourseRow, current: StudioTab | null): Html {
  const s = ctx.t.studio;
  const tabs: [StudioTab, string][] = [
    ['overview', ''],
    ['settings', 'settings'],
    ['outline', 'outline'],
    ['pictures', 'pictures'],
    ['history', 'history'],
  ];
  const links = tabs.map(
    ([tab, path]) =>
      html`<a href="${path ? href('/dashboard/studio/courses', course.id, path) : href('/dashboard/studio/courses', course.id)}"${attr('aria-current', tab === current && 'page')}>${s.tabs[tab]}</a>`,
  );
  links.push(html`<a href="${href('/dashboard/courses', course.id, 'preview')}">${s.tabs.preview}</a>`);
  return html`<p class="muted"><span class="badge${course.is_published ? ' completed' : ' draft'}">${course.is_published ? s.published : s.draft}</span></p>
<h1>${course.name}</h1>
<nav class="links studio-tabs" aria-label="${s.title(course.name)}">${join(links, ' · ')}</nav>`;
}

export function flash(message: string | null | undefined, kind: 'status' | 'error' = 'status'): Html | false {
  if (!message) return false;
  return kind === 'error'
    ? html`<div class="error" role="alert"><p>${message}</p></div>`
    : html`<div class="card" role="status"><p>${message}</p></div>`;
}

/** One labelled field: an input (or textarea/select), what was typed, and its problem. */
export function field(
  label: string,
  name: string,
  values: FormValues,
  errors: FieldErrors,
  options: { type?: string; textarea?: number; choices?: [string, string][]; hint?: string; required?: boolean } = {},
): Html {
  const value = values[name] ?? '';
  const error = errors[name];
  const id = `f-${name}`;
  const described = error ? `${id}-error` : undefined;
  let control: Html;
  if (options.choices) {
    control = html`<select id="${id}" name="${name}"${attr('aria-invalid', Boolean(error) && 'true')}${attr('aria-describedby', described)}>${options.choices.map(
      ([v, l]) => html`<option value="${v}"${attr('selected', v === value)}>${l}</option>`,
    )}</select>`;
  } else if (options.textarea) {
    control = html`<textarea id="${id}" name="${name}" rows="${options.textarea}"${attr('aria-invalid', Boolean(error) && 'true')}${attr('aria-describedby', described)}>${value}</textarea>`;
  } else if (options.type === 'checkbox') {
    control = html`<input id="${id}" type="checkbox" name="${name}"${attr('checked', value !== '')}${attr('aria-describedby', described)}>`;
  } else {
    control = html`<input id="${id}" name="${name}" type="${options.type ?? 'text'}" value="${value}"${attr('required', options.required === true)}${attr('aria-invalid', Boolean(error) && 'true')}${attr('aria-describedby', described)}>`;
  }
  // A checkbox sits before its words, on their line (a text field's label is above it).
  const labelled =
    options.type === 'checkbox'
      ? html`<p class="field field-check">${control} <label for="${id}">${label}</label>`
      : html`<p class="field"><label for="${id}">${label}</label> ${control}`;
  return html`${labelled}${options.hint && html`<br><small class="muted">${options.hint}</small>`}${
    error && html`<br><strong class="field-error" id="${id}-error">${error}</strong>`
  }</p>`;
}

/** The link to where an unmet publish rule is fixed. */
export function checklistFix(ctx: PageContext, course: CourseRow, rule: string): Html {
  const label = ctx.t.studio.checklist.fix;
  const settings = href('/dashboard/studio/courses', course.id, 'settings');
  switch (rule) {
    case 'prices':
    case 'eventCode':
    case 'enrollmentCode':
      return html`<a href="${settings}#prices">${label}</a>`;
    case 'dates':
      return html`<a href="${settings}#schedule">${label}</a>`;
    default:
      return html`<a href="${href('/dashboard/studio/courses', course.id, 'outline')}">${label}</a>`;
  }
}

export function checklistSection(ctx: PageContext, course: CourseRow, checklist: ChecklistItem[], quizzes: QuizReadiness[]): Html {
  const s = ctx.t.studio;
  const items = checklist.map(
    (item) =>
      html`<li data-rule="${item.rule}" data-ok="${String(item.ok)}">${item.ok ? '✔' : '✘'} <strong>${s.checklist.rules[item.rule] ?? item.rule}</strong>: ${checklistWords(ctx, course, item, quizzes)}${
        !item.ok && html` ${checklistFix(ctx, course, item.rule)}`
      }</li>`,
  );
  const action = course.is_published
    ? html`<form method="post" action="${href('/dashboard/studio/courses', course.id, 'unpublish')}"><button type="submit" class="secondary">${s.checklist.unpublish}</button></form>`
    : html`<form method="post" action="${href('/dashboard/studio/courses', course.id, 'publish')}"><button type="submit">${s.checklist.publish}</button></form>`;
  return html`<section aria-labelledby="checklist" class="card"><h2 id="checklist">${s.checklist.title}</h2>
<ul class="checklist">${items}</ul>
${action}</section>`;
}

/**
 * What is stored next to what was typed, for each field that differs (the 409 page of a stale
 * edit), saying truthfully what the form below holds (`holds`: the person's own text, or the
 * latest version) and the two ways on: save the form, or open the latest version (`latest`).
 */
export function staleCompare(
  ctx: PageContext,
  stored: FormValues,
  typed: FormValues,
  keys: string[],
  choice: { holds: 'yours' | 'latest'; latest: Href },
  labelOf: (key: string) => string = (key) => settingsLabel(ctx, key) ?? ctx.t.studioWords.otherField,
): Html {
  const s = ctx.t.studio.stale;
  const e = ctx.t.studio.editor;
  const rows = keys
    .filter((k) => (stored[k] ?? '') !== (typed[k] ?? ''))
    .map(
      (k) =>
        html`<tr><th scope="row">${labelOf(k)}</th><td data-label="${s.stored}"><pre class="stored">${stored[k] ?? ''}</pre></td><td data-label="${s.yours}"><pre class="typed">${typed[k] ?? ''}</pre></td></tr>`,
    );
  return html`<div class="warning" role="alert" id="stale"><h2>${s.title}</h2><p>${choice.holds === 'yours' ? e.staleYours : e.staleLatest}</p>
<ul class="stale-choice"><li>${e.keepMine}</li><li><a href="${choice.latest}">${e.takeLatest}</a></li></ul>
<div class="table-wrap"><table class="responsive"><thead><tr><th scope="col">${e.field}</th><th scope="col">${s.stored}</th><th scope="col">${s.yours}</th></tr></thead><tbody>${rows}</tbody></table></div></div>`;
}

/** What a delete takes with it: the lines listed, notes said in bold, and a picture shown. */
export interface DeleteDetails {
  lines: string[];
  notes?: (string | false)[];
  picture?: string;
}

/**
 * The confirmation of a delete (GET .../delete): what will be deleted and what goes with it, a
 * POST form to the same URL that does it (under the form CSRF rule), and a way back. No JavaScript.
 */
export function confirmDeleteBody(ctx: PageContext, question: string, details: DeleteDetails, action: Href, cancel: Href): Html {
  const c = ctx.t.studio.confirm;
  const notes = (details.notes ?? []).filter((n): n is string => Boolean(n));
  return html`<section class="card confirm-delete" aria-labelledby="confirm-title"><h2 id="confirm-title">${question}</h2>
${details.picture && html`<p><img src="${href(details.picture)}" alt="" width="160"></p>`}
${details.lines.length === 0 ? html`<p class="muted">${c.nothingElse}</p>` : html`<p>${c.goesWith}</p><ul class="deleted-with">${details.lines.map((l) => html`<li>${l}</li>`)}</ul>`}
${notes.map((n) => html`<p><strong>${n}</strong></p>`)}
<p class="muted">${c.cannotUndo}</p>
<form method="post" action="${action}" class="inline"><button type="submit" class="danger">${c.yes}</button></form>
<a href="${cancel}">${c.cancel}</a></section>`;
}
