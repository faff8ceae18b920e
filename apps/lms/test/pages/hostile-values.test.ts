import { chapters, modules, users } from '@lms/db';
import { eq } from 'drizzle-orm';
import { type DefaultTreeAdapterMap, parse } from 'parse5';
import t, { type Test } from 'tap';
import { testConfig } from '../../src/testing.js';
import { DASHBOARD_SCRIPT_PATH } from '../../src/pages/assets.js';
import { translation } from '../../src/pages/i18n/index.js';
import { buildTestApp } from '../helpers/app.js';
import { completeChapter, enroll, makeCategory, makeCourse, makeCourseTree } from '../helpers/catalog-fixtures.js';
import { apiKeyFor, makeInstitution, makeUser, sessionCookieFor } from '../helpers/fixtures.js';

// An attacker's text in every field a page shows (a partner creates courses and names them, a
// partner's token names its members, a teacher names keys, a redirect carries a reason): each
// page is parsed as a browser parses it, and the text must stay text: no element, attribute or
// link of the attacker's, and the attributes that carry the value hold it intact; in Indonesian
// and in English.

const PAYLOADS = ['<script>alert(1)</script>', '"><img src=x onerror=alert(1)>', 'javascript:alert(1)//'];

type Node = DefaultTreeAdapterMap['node'];
type Element = DefaultTreeAdapterMap['element'];

function* elementsOf(node: Node): Generator<Element> {
  if ('tagName' in node) yield node;
  if ('content' in node && node.content) yield* elementsOf(node.content as Node);
  if ('childNodes' in node) for (const child of node.childNodes) yield* elementsOf(child);
}

function textOf(node: Node): string {
  if (node.nodeName === '#text') return (node as DefaultTreeAdapterMap['textNode']).value;
  return 'childNodes' in node ? node.childNodes.map(textOf).join('') : '';
}

const attrOf = (el: Element, name: string) => el.attrs.find((a) => a.name === name)?.value;

/** Every tag the pages use; anything else on a page was injected. */
const OUR_TAGS = new Set(
  (
    'html head body meta title link script header nav span a form button main h1 h2 h3 section ul ol li div dl dt dd ' +
    'table caption thead tbody tr th td p strong code details summary label input select option article figure ' +
    'figcaption svg g rect text desc'
  ).split(' '),
);
const URL_ATTRIBUTES = new Set(['href', 'src', 'action', 'formaction', 'xlink:href', 'srcset', 'poster', 'data']);

interface Parsed {
  all: Element[];
  text: string;
  find(tag: string, where?: (el: Element) => boolean): Element[];
}

/** Parses the page and checks what must hold whatever it shows; returns it for the specific checks. */
function parsePage(t: Test, html: string, label: string): Parsed {
  const doc = parse(html);
  const all = [...elementsOf(doc)];
  const foreign = all.filter((el) => !OUR_TAGS.has(el.tagName));
  t.same(
    foreign.map((el) => el.tagName),
    [],
    `${label}: no element but ours`,
  );
  const scripts = all.filter((el) => el.tagName === 'script');
  t.ok(
    scripts.every((el) => attrOf(el, 'src') === DASHBOARD_SCRIPT_PATH && el.childNodes.length === 0),
    `${label}: only our script file`,
  );
  const handlers = all.flatMap((el) => el.attrs.filter((a) => /^on/i.test(a.name) || a.name === 'style' || a.name === 'srcdoc'));
  t.same(handlers, [], `${label}: no event handler or style attribute`);
  const links = all.flatMap((el) => el.attrs.filter((a) => URL_ATTRIBUTES.has(a.name)).map((a) => a.value));
  t.ok(links.length > 0 && links.every((v) => /^(\/(?![/\\])|#)/.test(v)), `${label}: every link is a path of this site`);
  const body = all.find((el) => el.tagName === 'body')!;
  return {
    all,
    text: textOf(body),
    find: (tag, where = () => true) => all.filter((el) => el.tagName === tag && where(el)),
  };
}

const { app } = await buildTestApp(t);
const db = app.db;
const institutionId = await makeInstitution(db);

for (const [index, payload] of PAYLOADS.entries()) {
  const v = {
    course: `${payload} course`,
    category: `${payload} category`,
    instructor: `${payload} instructor`,
    teacher: `${payload} teacher`,
    learner: `${payload} learner`,
    membership: `${payload} member`,
    key: `${payload} key`,
    currency: payload,
    module: `${payload} module`,
    chapter: `${payload} chapter`,
    reason: `${payload} reason`,
  };

  t.test(`payload ${index + 1}: ${payload}`, async (t) => {
    const teacher = await makeUser(db, { role: 'teacher', name: v.teacher });
    const learner = await makeUser(db, { role: 'student', name: v.learner });
    await db.update(users).set({ membershipId: v.membership }).where(eq(users.id, learner.id));
    const category = await makeCategory(db, { name: v.category });
    const course = await makeCourse(db, {
      teacherId: teacher.id,
      institutionId,
      name: v.course,
      instructor: v.instructor,
      categoryId: category.id,
      isPurchasable: true,
      price: '150000',
      currency: v.currency,
    });
    const tree = await makeCourseTree(db, course.id, [2]);
    await db.update(modules).set({ name: v.module }).where(eq(modules.id, tree.modules[0]!.module.id));
    await db.update(chapters).set({ name: v.chapter }).where(eq(chapters.id, tree.modules[0]!.chapters[0]!.id));
    await enroll(db, learner.id, course.id);
    await completeChapter(db, learner.id, tree.modules[0]!.chapters[0]!);
    await apiKeyFor(db, teacher.id, v.key);
    const teacherCookie = await sessionCookieFor(app, teacher.id);
    const learnerCookie = await sessionCookieFor(app, learner.id);
    const shows = (p: Parsed, label: string, values: string[]) => {
      for (const value of values) t.ok(p.text.includes(value), `${label} shows ${JSON.stringify(value)} as text`);
    };

    // Every page in both languages: Indonesian (the default) and English (by the cookie). The
    // words around the values come from the catalogs; the values must come out intact.
    for (const [locale, amount] of [
      ['id', '150.000'],
      ['en', '150,000'],
    ] as const) {
      const { t: m } = translation(locale, testConfig().PAGES_TIME_ZONE);
      const get = async (url: string, cookie?: string) => {
        const res = await app.inject({ url, headers: { cookie: [cookie, `lms_lang=${locale}`].filter(Boolean).join('; ') } });
        t.equal(res.statusCode, 200, `${locale} ${url}`);
        return res.body;
      };
      const price = `${v.currency}\u00a0${amount}`;

      // The learner's dashboard: the course, its progress bar's label, the membership id.
      const learnerDash = parsePage(t, await get('/dashboard', learnerCookie), `${locale} learner dashboard`);
      shows(learnerDash, 'learner dashboard', [v.course, v.membership, v.learner, m.dashboard.welcome(v.learner)]);
      t.same(
        learnerDash.find('span', (el) => attrOf(el, 'role') === 'progressbar').map((el) => attrOf(el, 'aria-label')),
        [m.common.progressOf(v.course)],
        'the progress bar label, intact',
      );
      t.same(learnerDash.find('a', (el) => attrOf(el, 'href') === `/dashboard/courses/${course.id}`).map(textOf), [v.course]);
      t.same(
        learnerDash.find('html').map((el) => attrOf(el, 'lang')),
        [locale],
      );

      // The catalog, searched for the payload itself: the search box keeps it as its value, and
      // the language switch's return path carries it intact.
      const searchPath = `/dashboard/catalog?search=${encodeURIComponent(payload)}`;
      const catalog = parsePage(t, await get(searchPath, learnerCookie), `${locale} catalog`);
      shows(catalog, 'catalog', [v.course, v.category, m.catalog.instructor(v.instructor), price]);
      t.same(
        catalog.find('input', (el) => attrOf(el, 'name') === 'search').map((el) => attrOf(el, 'value')),
        [payload],
        'the search value, intact',
      );
      t.same(
        catalog.find('input', (el) => attrOf(el, 'name') === 'next').map((el) => attrOf(el, 'value')),
        [searchPath],
        'the return path, intact',
      );
      t.ok(
        catalog.find('option').some((el) => textOf(el) === v.category && attrOf(el, 'value') === String(category.id)),
        'the category option',
      );
      t.same(catalog.find('h3').map(textOf), [v.course], 'found by its name, one card');
      t.same(
        catalog.find('span', (el) => attrOf(el, 'role') === 'progressbar').map((el) => attrOf(el, 'aria-label')),
        [m.common.progressOf(v.course)],
      );

      // The course page.
      const coursePage = parsePage(t, await get(`/dashboard/courses/${course.id}`, learnerCookie), `${locale} course page`);
      t.same(coursePage.find('title').map(textOf), [`${v.course} · LMS`]);
      t.same(coursePage.find('h1').map(textOf), [v.course]);
      const facts = Object.fromEntries(
        coursePage.find('dt').map((dt) => [textOf(dt), textOf(coursePage.all[coursePage.all.indexOf(dt) + 1]!)]),
      );
      t.equal(facts[m.course.category], v.category);
      t.equal(facts[m.course.instructor], v.instructor);
      t.equal(facts[m.course.price], price, 'the currency, escaped like every other value');
      shows(coursePage, 'course page', [v.module, v.chapter]);

      // The teacher's dashboard: their name, the course, the category in the table and the charts.
      const teacherDash = parsePage(t, await get('/dashboard', teacherCookie), `${locale} teacher dashboard`);
      t.same(teacherDash.find('h1').map(textOf), [m.dashboard.welcome(v.teacher)]);
      t.ok(
        teacherDash
          .find('span', (el) => attrOf(el, 'class') === 'who')
          .every((el) => textOf(el) === textOf(parse(String(m.layout.signedInAs(v.teacher))))),
      );
      t.ok(
        teacherDash.find('td', (el) => attrOf(el, 'data-label') === m.dashboard.column.category).some((el) => textOf(el) === v.category),
        'the category cell',
      );
      t.ok(
        teacherDash.find('a').some((el) => textOf(el) === v.course),
        'the course link',
      );
      const descriptions = teacherDash.find('desc').map(textOf);
      t.equal(descriptions.length, 4, 'four charts');
      t.ok(
        descriptions.every((d) => d.includes(`${v.category}: `)),
        'the category in every chart',
      );
      t.ok(
        teacherDash.find('text').some((el) => textOf(el) === v.category),
        'as an SVG label',
      );

      // The Kunci API page: the key name in its cell and in the revoke button's data-name; the
      // script's data, a JSON attribute, parses back to the catalog's texts.
      const keysPage = parsePage(t, await get('/dashboard/api-keys', teacherCookie), `${locale} Kunci API`);
      t.same(keysPage.find('td', (el) => attrOf(el, 'data-label') === m.apiKeys.column.name).map(textOf), [v.key]);
      t.same(
        keysPage.find('button', (el) => attrOf(el, 'data-revoke') !== undefined).map((el) => [attrOf(el, 'data-name'), textOf(el)]),
        [[v.key, `${m.apiKeys.script.revoke} ${v.key}`]],
      );
      t.equal(keysPage.find('script').length, 1, 'our script, and only it');
      const scriptData = JSON.parse(attrOf(keysPage.find('form', (el) => attrOf(el, 'id') === 'create-key')[0]!, 'data-script')!);
      t.same(scriptData.messages, m.apiKeys.script, "the script's texts");

      // The sign-in page with the payload as the technical reason of a failed sign-in.
      const signIn = parsePage(t, await get(`/sign-in?error=invalid_token&reason=${encodeURIComponent(v.reason)}`), `${locale} sign-in`);
      t.same(signIn.find('code').map(textOf), [v.reason]);
      t.ok(signIn.text.includes(m.signIn.problems.invalid), 'explained in plain words');
    }
  });
}
