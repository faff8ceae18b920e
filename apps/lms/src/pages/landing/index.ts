import { HtmlPage } from '@lms/contracts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { pageContext } from '../i18n/index.js';
import { sendPage } from '../send.js';
import { optionalSession } from '../session.js';
import { href, html } from '../view/html.js';
import { page } from '../view/layout.js';

/**
 * GET /: what this is, and the ways in: sign-in (through the person's organisation), the
 * catalog, checking a certificate; a signed-in person gets their dashboard link first.
 */
const landingPage: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/',
    { config: { public: true }, schema: { hide: true, tags: ['pages'], response: { 200: HtmlPage } } },
    async (request, reply) => {
      const ctx = pageContext(app, request);
      const l = ctx.t.path.landing;
      const user = await optionalSession(app, request);
      const body = html`<h1>${l.title}</h1>
<div class="card"><p>${l.intro}</p></div>
<ul>
${user ? html`<li><a href="${href('/dashboard')}">${l.dashboard}</a></li>` : html`<li><a href="${href('/sign-in')}">${l.signIn}</a></li>`}
<li><a href="${href('/dashboard/catalog')}">${l.catalog}</a></li>
<li><a href="${href('/certificates')}">${l.verify}</a></li>
</ul>`;
      return sendPage(reply, page(ctx, l.title, body, { user, current: '/' }));
    },
  );
};

export default landingPage;
