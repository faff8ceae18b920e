import { HtmlPage, LearningIdParams, RedirectResponse } from '@lms/contracts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  type InstitutionKeeper,
  type InstitutionSettings,
  keeperOf,
  listInstitutions,
  readInstitutionSettings,
  setTransferAccount,
  TRANSFER_ACCOUNT_MAX,
  type TransferAccount,
  type TransferAccountField,
  type TransferAccountProblem,
  transferAccountProblems,
} from '../../domain/institutions/transfer-account.js';
import { ForbiddenError } from '../../errors.js';
import type { PageContext } from '../i18n/index.js';
import { formScope, PAGE, seeOther, signedIn } from '../page-route.js';
import { sendPage } from '../send.js';
import type { PageSession } from '../session.js';
import { attr, type Html, href, html } from '../view/html.js';
import { errorPage, INSTITUTION_PATH, page } from '../view/layout.js';
import { institutionWords } from './messages.js';

// /dashboard/institution: an institution's own settings, kept by its admins (and by super_admin
// for any institution) without a terminal (docs/operations.md, "Transfer accounts"): the bank
// account its learners transfer to, with the same rules as `lms-admin institution
// set-transfer-account`, and the place where payment gateway keys will be set. Plain forms
// (csrf: 'form'); a wrong value is a 422 page naming each field's problem beside it; every change
// is logged with who made it (the CLI's line, with the person).

const Loose = z.object({}).passthrough().nullish();
const FlashQuery = z.object({ done: z.unknown().optional() });

type Values = Record<TransferAccountField, string>;
type Problems = Partial<Record<TransferAccountField, TransferAccountProblem>>;

/** The signed-in staff member who may keep an institution (admin, super_admin); others are refused (403). */
export async function keeper(
  app: FastifyInstance,
  request: FastifyRequest,
): Promise<{ session: PageSession; ctx: PageContext; person: InstitutionKeeper }> {
  const { session, ctx } = await signedIn(app, request);
  const person = await keeperOf(app.db, session.caller.userId);
  // Only staff who may keep an institution go further; the rest are refused before any lookup.
  if (!person || (person.role !== 'admin' && person.role !== 'super_admin')) throw new ForbiddenError(ctx.t.enrol.forbidden.notAllowed);
  return { session, ctx, person };
}

/** A form value as text, trimmed; anything else (a repeated name, nothing) is empty. */
const text = (form: Record<string, unknown>, name: string) => (typeof form[name] === 'string' ? (form[name] as string).trim() : '');

function problemText(ctx: PageContext, field: TransferAccountField, problem: TransferAccountProblem): string {
  const p = institutionWords(ctx).problem;
  return problem === 'tooLong' ? p.tooLong(TRANSFER_ACCOUNT_MAX[field]) : p[problem];
}

function accountField(ctx: PageContext, name: TransferAccountField, values: Values, problems: Problems): Html {
  const w = institutionWords(ctx);
  const id = `ta-${name}`;
  const problem = problems[name];
  const described = problem ? `${id}-error` : undefined;
  return html`<p class="field"><label for="${id}">${w[name]}</label> <input id="${id}" name="${name}" value="${values[name]}" required maxlength="${String(TRANSFER_ACCOUNT_MAX[name])}" autocomplete="off"${attr('aria-invalid', Boolean(problem) && 'true')}${attr('aria-describedby', described)}>${
    problem && html`<br><strong class="field-error" id="${id}-error">${problemText(ctx, name, problem)}</strong>`
  }</p>`;
}

function settingsView(ctx: PageContext, s: InstitutionSettings, notice: Html | false, typed?: Values, problems: Problems = {}): Html {
  const w = institutionWords(ctx);
  const values: Values = typed ?? { bank: s.account?.bank ?? '', number: s.account?.number ?? '', holder: s.account?.holder ?? '' };
  const action = href('/dashboard/institutions', s.id, 'transfer-account');
  const current = s.account
    ? html`<dl><dt>${w.bank}</dt><dd>${s.account.bank}</dd><dt>${w.number}</dt><dd><code>${s.account.number}</code></dd><dt>${w.holder}</dt><dd>${s.account.holder}</dd></dl>`
    : html`<p class="warning">${w.none}</p>`;
  return html`<h1>${w.title(s.name)}</h1>
${notice}
<section aria-labelledby="transfer-account" class="card">
<h2 id="transfer-account">${w.transferHeading}</h2>
<p>${w.transferIntro}</p>
<h3>${w.current}</h3>
${current}
<form method="post" action="${action}" class="stack" novalidate>
${accountField(ctx, 'bank', values, problems)}
${accountField(ctx, 'number', values, problems)}
${accountField(ctx, 'holder', values, problems)}
<button type="submit">${w.save}</button>
</form>
${
  s.account &&
  html`<form method="post" action="${href('/dashboard/institutions', s.id, 'transfer-account', 'clear')}">
<p class="muted">${w.clearHelp}</p>
<button type="submit" class="secondary">${w.clear}</button>
</form>`
}
</section>
<section aria-labelledby="payment-gateways" class="card">
<h2 id="payment-gateways">${w.gatewaysHeading}</h2>
<p class="muted">${w.gatewaysText}</p>
</section>`;
}

function flash(ctx: PageContext, done: unknown): Html | false {
  const w = institutionWords(ctx);
  if (done === 'saved') return html`<p class="notice" role="status">${w.saved}</p>`;
  if (done === 'cleared') return html`<p class="notice" role="status">${w.cleared}</p>`;
  return false;
}

const institutionPages: FastifyPluginAsyncZod = async (app) => {
  formScope(app, 4096);
  const formSchema = (summary: string) => ({
    config: { auth: true as const, csrf: 'form' as const },
    schema: { ...PAGE, summary, params: LearningIdParams, body: Loose, response: { 303: RedirectResponse, 422: HtmlPage } },
  });

  // The entry point: an admin sees their institution's settings; a super_admin chooses an institution.
  app.get(
    '/institution',
    { config: { auth: true }, schema: { ...PAGE, response: { 200: HtmlPage, 403: HtmlPage } } },
    async (request, reply) => {
      const { session, ctx, person } = await keeper(app, request);
      const w = institutionWords(ctx);
      if (person.role === 'admin') {
        // Said in its own words (the scope's handler would make any ForbiddenError the generic one).
        if (person.institutionId === null) return sendPage(reply, errorPage(ctx, 403, session.user, w.noInstitution), 403);
        // Their own institution's page, here (the nav's link answers 200, not a redirect).
        const settings = await readInstitutionSettings(app.db, person, person.institutionId);
        return sendPage(
          reply,
          page(ctx, w.title(settings.name), settingsView(ctx, settings, false), { user: session.user, current: INSTITUTION_PATH }),
        );
      }
      const rows = await listInstitutions(app.db);
      const body = html`<h1>${w.listTitle}</h1>
<p>${w.listIntro}</p>
${
  rows.length === 0
    ? html`<p class="muted">${w.noInstitutions}</p>`
    : html`<ul>${rows.map(
        (r) =>
          html`<li><a href="${href('/dashboard/institutions', r.id)}">${r.name}</a> <span class="muted">(${r.hasAccount ? w.hasAccount : w.noAccountYet})</span></li>`,
      )}</ul>`
}`;
      return sendPage(reply, page(ctx, w.listTitle, body, { user: session.user, current: INSTITUTION_PATH }));
    },
  );

  app.get(
    '/institutions/:id',
    { config: { auth: true }, schema: { ...PAGE, params: LearningIdParams, querystring: FlashQuery, response: { 200: HtmlPage } } },
    async (request, reply) => {
      const { session, ctx, person } = await keeper(app, request);
      const settings = await readInstitutionSettings(app.db, person, request.params.id);
      const body = settingsView(ctx, settings, flash(ctx, request.query.done));
      return sendPage(
        reply,
        page(ctx, institutionWords(ctx).title(settings.name), body, { user: session.user, current: INSTITUTION_PATH }),
      );
    },
  );

  app.post(
    '/institutions/:id/transfer-account',
    formSchema('Transfer-account form of the institution settings page'),
    async (request, reply) => {
      const { session, ctx, person } = await keeper(app, request);
      const settings = await readInstitutionSettings(app.db, person, request.params.id);
      const form = (request.body ?? {}) as Record<string, unknown>;
      const typed: TransferAccount = { bank: text(form, 'bank'), number: text(form, 'number'), holder: text(form, 'holder') };
      const problems = transferAccountProblems(typed);
      if (Object.keys(problems).length > 0) {
        const w = institutionWords(ctx);
        // What was typed comes back in the form, a control character taken out (the page never shows one).
        const shown: Values = {
          bank: typed.bank.replace(/\p{Cc}/gu, ''),
          number: typed.number.replace(/\p{Cc}/gu, ''),
          holder: typed.holder.replace(/\p{Cc}/gu, ''),
        };
        const notice = html`<div class="error" role="alert"><p>${w.invalid}</p></div>`;
        return sendPage(
          reply,
          page(ctx, w.title(settings.name), settingsView(ctx, settings, notice, shown, problems), {
            user: session.user,
            current: INSTITUTION_PATH,
          }),
          422,
        );
      }
      await setTransferAccount(app.db, settings.id, typed, app.clock());
      request.log.info(
        {
          institutionId: settings.id,
          by: session.caller.userId,
          role: person.role,
          bank: typed.bank,
          number: typed.number,
          holder: typed.holder,
        },
        'institution transfer account set',
      );
      return seeOther(reply, `/dashboard/institutions/${settings.id}?done=saved`);
    },
  );

  app.post(
    '/institutions/:id/transfer-account/clear',
    formSchema('Remove-account form of the institution settings page'),
    async (request, reply) => {
      const { session, person } = await keeper(app, request);
      const settings = await readInstitutionSettings(app.db, person, request.params.id);
      await setTransferAccount(app.db, settings.id, null, app.clock());
      request.log.info(
        { institutionId: settings.id, by: session.caller.userId, role: person.role },
        'institution transfer account removed',
      );
      return seeOther(reply, `/dashboard/institutions/${settings.id}?done=cleared`);
    },
  );
};

export default institutionPages;
