import { AUTHORING_OPERATIONS as op, type CourseRow, StaleVersionError } from '../../domain/authoring/index.js';
import { listCategories } from '../../domain/categories.js';
import { AccreditationConflictError, AccreditationRefusedError, recordAccreditation } from '../../domain/evidence/accreditations.js';
import { BadRequestError } from '../../errors.js';
import { refusalsByField } from '../form-errors.js';
import type { PageContext } from '../i18n/index.js';
import { type Html, href, html } from '../view/html.js';
import { DETAIL_SECTIONS, type FieldErrors, type FormValues, SETTINGS_GROUPS, settingsBody, settingsValues } from './forms.js';
import { accreditationInput, accreditationsPart } from './accreditations.js';
import { type App, changed, courseOf, getPage, postForm, studioPath, versionOf } from './screen.js';
import { field, flash, staleCompare } from './views.js';

// The course's settings (/dashboard/studio/courses/:id/settings): its own fields in groups (the
// anchors the checklist links to), saved by the updateCourse operation at the version the form
// was opened at. Below the form, the course's accreditations (./accreditations.ts): read-only, and
// recorded there by an admin of its institution or a super_admin.

function settingsPage(
  ctx: PageContext,
  categories: Category[],
  course: CourseRow,
  values: FormValues,
  errors: FieldErrors,
  note: Html | false,
  credit: Html,
  compare: Html | false = false,
) {
  const s = ctx.t.studio;
  const fl = s.fields;
  const labels: Record<string, string> = {
    ...fl,
    ...ctx.t.studioWords.sections,
  };
  const one = (name: string): Html => {
    switch (name) {
      case 'description':
        return field(fl.description, name, values, errors, { textarea: 6 });
      case 'type':
        return field(fl.type, name, values, errors, {
          choices: [
            ['self_paced', fl.typeSelfPaced],
            ['scheduled', fl.typeScheduled],
          ],
        });
      case 'enrollmentType':
        return field(fl.enrollmentType, name, values, errors, {
          choices: [
            ['open', fl.enrollOpen],
            ['code', fl.enrollCode],
            ['approval', fl.enrollApproval],
          ],
        });
      case 'startDate':
      case 'endDate':
        return field(labels[name], name, values, errors, { type: 'date' });
      case 'postTestMinScore':
        return field(fl.postTestMinScore, name, values, errors, { type: 'number' });
      case 'evaluationItems':
        return field(fl.evaluationItems, name, values, errors, { textarea: 5, hint: fl.evaluationItemsHint });
      case 'isPurchasable':
      case 'previewMode':
        return field(labels[name], name, values, errors, { type: 'checkbox' });
      case 'name':
        return field(fl.name, name, values, errors, { required: true });
      case 'categoryId':
        // A picker of the existing categories (a stored id that is no longer one stays choosable).
        return field(fl.categoryId, name, values, errors, { choices: categoryChoices(ctx, categories, values.categoryId ?? '') });
      case 'eventCode':
        return field(fl.eventCode, name, values, errors, { hint: s.editor.eventCodeHint });
      default:
        return (DETAIL_SECTIONS as readonly string[]).includes(name)
          ? field(labels[name], name, values, errors, { textarea: 3, hint: fl.sectionHint })
          : field(labels[name], name, values, errors);
    }
  };
  const groups = (Object.keys(SETTINGS_GROUPS) as (keyof typeof SETTINGS_GROUPS)[]).map(
    (g) => html`<fieldset id="${g}" class="card"><legend>${s.groups[g]}</legend>${SETTINGS_GROUPS[g].map(one)}</fieldset>`,
  );
  return html`${note}${compare}
<form method="post" action="${href('/dashboard/studio/courses', course.id, 'settings')}" class="stack">
<input type="hidden" name="version" value="${values.version ?? String(course.version)}">
${groups}
<button type="submit">${s.save}</button>
</form>
${credit}`;
}

type Category = { id: number; code: string; name: string };

function categoryChoices(ctx: PageContext, categories: Category[], current: string): [string, string][] {
  const choices: [string, string][] = [
    ['', ctx.t.studio.editor.categoryNone],
    ...categories.map((c) => [String(c.id), c.name] as [string, string]),
  ];
  if (current !== '' && !choices.some(([id]) => id === current)) choices.push([current, current]);
  return choices;
}

export default function settingsScreen(app: App) {
  return [
    getPage('/studio/courses/:id/settings', 'Course studio: settings', async (asked) => {
      const { ctx, actx, id, query, show } = asked;
      const course = await courseOf(app, actx, id);
      const saved = query.saved === '1' && flash(ctx.t.studio.saved);
      const credit = await accreditationsPart(app, asked, course);
      return show(
        course,
        'settings',
        ctx.t.studio.tabs.settings,
        settingsPage(ctx, await listCategories(app.db), course, settingsValues(course, ctx.locale), {}, saved, credit),
      );
    }),
    postForm('/studio/courses/:id/settings', 'Saves the settings', async (asked) => {
      const { ctx, actx, id, form: typed, show, back } = asked;
      const course = await courseOf(app, actx, id);
      const { body, errors } = settingsBody(typed, ctx.t.studio.evidence, ctx.t.formErrors);
      const s = ctx.t.studio;
      const credit = await accreditationsPart(app, asked, course);
      const again = (page: Html, status: number) => show(course, 'settings', s.tabs.settings, page, status);
      if (!body)
        return again(settingsPage(ctx, await listCategories(app.db), course, typed, errors, flash(s.fixBelow, 'error'), credit), 422);
      try {
        await op.updateCourse(app.db, actx, course.id, body, versionOf(typed));
      } catch (err) {
        if (err instanceof StaleVersionError) {
          const stored = settingsValues(err.stored as CourseRow, ctx.locale);
          const keys = Object.keys(stored).filter((k) => k !== 'version');
          return again(
            settingsPage(
              ctx,
              await listCategories(app.db),
              course,
              stored,
              {},
              false,
              credit,
              staleCompare(ctx, stored, typed, keys, { holds: 'latest', latest: href('/dashboard/studio/courses', course.id, 'settings') }),
            ),
            409,
          );
        }
        if (err instanceof BadRequestError)
          return again(
            settingsPage(
              ctx,
              await listCategories(app.db),
              course,
              typed,
              refusalsByField(err.details, ctx.t.formErrors),
              flash(s.fixBelow, 'error'),
              credit,
            ),
            422,
          );
        throw err;
      }
      await changed(app, course.id);
      return back(studioPath(course.id, '/settings?saved=1'));
    }),
    postForm('/studio/courses/:id/accreditations', 'Records an accreditation', async (asked) => {
      const { ctx, actx, id, form: typed, show, back } = asked;
      const course = await courseOf(app, actx, id);
      try {
        // The API's own rule: a teacher's post is a 403 there, every bound a 422, a repeated reference a 409.
        await recordAccreditation(app.db, actx.author, course.id, accreditationInput(typed), app.clock());
      } catch (err) {
        if (!(err instanceof AccreditationRefusedError || err instanceof AccreditationConflictError)) throw err;
        const credit = await accreditationsPart(app, asked, course, typed, err.problem);
        const page = settingsPage(ctx, await listCategories(app.db), course, settingsValues(course, ctx.locale), {}, false, credit);
        return show(course, 'settings', ctx.t.studio.tabs.settings, page, err instanceof AccreditationConflictError ? 409 : 422);
      }
      await changed(app, course.id);
      return back(studioPath(course.id, '/settings?recorded=1#accreditations'));
    }),
  ];
}
