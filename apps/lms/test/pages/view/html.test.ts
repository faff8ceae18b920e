import t from 'tap';
import { absoluteUrl, attr, href, Html, html, join, mailto, raw, Url } from '../../../src/pages/view/html.js';

// CI runs this file once (not again in the PostgreSQL pass): HTML escaping, no database.

// The pages' tagged template: what it escapes, what it lets through, and the places it refuses
// to interpolate at all.

const s = (value: Html) => String(value);

t.test('each special character is escaped, in element content and in a double-quoted attribute', async (t) => {
  const cases: [string, string][] = [
    ['&', '&amp;'],
    ['<', '&lt;'],
    ['>', '&gt;'],
    ['"', '&quot;'],
    ["'", '&#39;'],
  ];
  for (const [char, entity] of cases) {
    t.equal(s(html`<p>${char}</p>`), `<p>${entity}</p>`, `text: ${char}`);
    t.equal(s(html`<p title="${char}">x</p>`), `<p title="${entity}">x</p>`, `attribute: ${char}`);
  }
  t.equal(s(html`<p>${'&amp;'}</p>`), '<p>&amp;amp;</p>', 'an entity in text is text, escaped again');
  const harmless = 'a/b=c `d` é 中 \u00a0 -- 100%';
  t.equal(s(html`<p>${harmless}</p>`), `<p>${harmless}</p>`, 'everything else is left as it is');
  t.equal(s(html`<p>${'<script>alert(1)</script>'}</p>`), '<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>');
  t.equal(s(html`<input value="${'"><img src=x onerror=alert(1)>'}">`), '<input value="&quot;&gt;&lt;img src=x onerror=alert(1)&gt;">');
});

t.test('numbers are text; null, undefined and false render nothing; true and objects are refused', async (t) => {
  t.equal(s(html`<b>${42}</b><b>${-1.5}</b><b>${0}</b>`), '<b>42</b><b>-1.5</b><b>0</b>');
  t.equal(s(html`<b>${null}${undefined}${false}</b>`), '<b></b>');
  t.equal(s(html`<b title="${null}">x</b>`), '<b title="">x</b>');
  const ok = false;
  t.equal(s(html`<p>${ok && html`<em>shown</em>`}</p>`), '<p></p>', 'cond && html`…`');
  t.throws(() => html`<b>${true as never}</b>`, TypeError);
  t.throws(() => html`<b>${{ toString: () => '<i>' } as never}</b>`, TypeError, 'an object is not stringified');
  t.throws(() => html`<b>${(() => 'x') as never}</b>`, TypeError);
});

t.test('raw() and nested templates go in as they are; arrays join; join() separates', async (t) => {
  t.equal(s(html`<div>${raw('<hr>')}</div>`), '<div><hr></div>');
  const inner = html`<em>${'a & b'}</em>`;
  t.equal(s(html`<p>${inner}</p>`), '<p><em>a &amp; b</em></p>', 'escaped once, not twice');
  t.equal(s(html`<p>${html`<span>${html`<i>${'<deep>'}</i>`}</span>`}</p>`), '<p><span><i>&lt;deep&gt;</i></span></p>');
  t.equal(s(html`<ul>${['<a>', 'b'].map((x) => html`<li>${x}</li>`)}</ul>`), '<ul><li>&lt;a&gt;</li><li>b</li></ul>');
  t.equal(s(html`<p>${['a', 1, null, ['<', html`<br>`]]}</p>`), '<p>a1&lt;<br></p>', 'nested and mixed arrays');
  t.equal(s(html`<p>${[]}</p>`), '<p></p>');
  t.equal(s(join(['<a>', html`<b>B</b>`, 3], ' · ')), '&lt;a&gt; · <b>B</b> · 3');
  t.equal(s(join(['x', 'y'], '<&>')), 'x&lt;&amp;&gt;y', 'a text separator is escaped');
  t.equal(s(join([], ', ')), '');
  t.throws(() => new Html('<script>', Symbol('html')), TypeError, 'nobody else can make an Html');
  t.throws(() => new Url('javascript:alert(1)', Symbol('html')), TypeError, 'nor a Url');
});

t.test('href() builds paths of this site only', async (t) => {
  t.equal(String(href('/dashboard')), '/dashboard');
  t.equal(String(href('/dashboard/courses', 12)), '/dashboard/courses/12');
  t.equal(
    String(href('/dashboard/courses', '../../api/x?y=1#z')),
    '/dashboard/courses/..%2F..%2Fapi%2Fx%3Fy%3D1%23z',
    'a segment is encoded',
  );
  t.equal(String(href('/dashboard/courses', 'javascript:alert(1)')), '/dashboard/courses/javascript%3Aalert(1)');
  for (const base of [
    'javascript:alert(1)',
    'https://evil.example/',
    '//evil.example',
    '/\\evil.example',
    'dashboard',
    '',
    '/a b',
    '/a"b',
    '/a?x=<1>',
  ]) {
    t.throws(() => href(base), TypeError, `refused: ${JSON.stringify(base)}`);
  }
  const page2 = href('/dashboard/catalog').withQuery({ search: 'a&b "c"', categoryId: undefined, sortBy: '', page: 2 });
  t.equal(String(page2), '/dashboard/catalog?search=a%26b+%22c%22&page=2');
  t.equal(
    s(html`<a href="${page2}">next</a>`),
    '<a href="/dashboard/catalog?search=a%26b+%22c%22&amp;page=2">next</a>',
    'escaped in the attribute',
  );
  t.equal(String(href('/x').withQuery({})), '/x');
});

t.test('mailto() links one plain address, nothing else', async (t) => {
  t.equal(
    String(html`<a href="${mailto('guru.satu+kursus@lembaga.example')}">x</a>`),
    '<a href="mailto:guru.satu+kursus@lembaga.example">x</a>',
  );
  for (const bad of [
    'a@b.example?cc=other@evil.example',
    'a@b.example&bcc=x@y',
    'a b@c.example',
    '"a"@b.example',
    'javascript:alert(1)',
    'a@b.example>',
    '<a@b.example',
    'a@',
    '@b.example',
    `${'a'.repeat(250)}@b.example`,
    'a@b.example\n',
    'a@-b.example',
  ]) {
    t.equal(mailto(bad), null, `refused: ${JSON.stringify(bad)}`);
  }
});

t.test('a URL attribute takes only a Url', async (t) => {
  t.equal(s(html`<a href="${href('/dashboard')}">d</a>`), '<a href="/dashboard">d</a>');
  t.equal(
    s(html`<script src="${href('/dashboard/assets/dashboard.js')}" defer></script>`),
    '<script src="/dashboard/assets/dashboard.js" defer></script>',
  );
  for (const value of ['javascript:alert(1)', '/dashboard', 'https://evil.example', 7, null]) {
    t.throws(() => html`<a href="${value}">x</a>`, TypeError, `href refuses ${String(value)}`);
  }
  t.throws(() => html`<a class="x" HREF="${'javascript:alert(1)'}">x</a>`, TypeError, 'whatever the case of the name');
  t.throws(() => html`<form action="${'/x'}"></form>`, TypeError);
  t.throws(() => html`<img src="${'x'}">`, TypeError);
  t.throws(() => html`<svg><a xlink:href="${'javascript:alert(1)'}"></a></svg>`, TypeError);
  t.throws(
    () => html`<a href="/dashboard/courses/${'1'}">x</a>`,
    TypeError,
    'also after a literal start: build the whole path with href()',
  );
  t.throws(() => html`<a href="${href('/a')}${'b'}">x</a>`, TypeError, 'every slot of the attribute');
});

t.test('attributes that run or style something take nothing; other quoting is refused', async (t) => {
  t.throws(() => html`<p onclick="${'x'}">x</p>`, /onclick/);
  t.throws(() => html`<img onerror="${'x'}">`, TypeError);
  t.throws(() => html`<p style="${'color:red'}">x</p>`, /style/);
  t.throws(() => html`<iframe srcdoc="${'x'}"></iframe>`, TypeError);
  t.throws(() => html`<p title='${'x'}'>x</p>`, /double-quoted/, 'single quotes');
  t.throws(() => html`<p title=${'x'}>x</p>`, /double-quoted/, 'no quotes');
  t.throws(() => html`<p ti${'x'}tle="y">x</p>`, /name/, 'in an attribute name');
  t.throws(() => html`<${'p'}>x</p>`, /name/, 'as a tag name');
  t.throws(() => html`<p>x</${'p'}>`, /name/, 'as a closing tag name');
  t.throws(() => html`<script>var a = ${'1'};</script>`, /<script>/);
  t.throws(() => html`<style>p { color: ${'red'} }</style>`, /<style>/);
  t.throws(() => html`<!-- ${'x'} -->`, /comment/);
  t.equal(
    s(html`<script src="${href('/a.js')}"></script><p>${'<after>'}</p>`),
    '<script src="/a.js"></script><p>&lt;after&gt;</p>',
    'text again after </script>',
  );
  t.equal(s(html`<!-- a note --><p>${'<x>'}</p>`), '<!-- a note --><p>&lt;x&gt;</p>', 'text again after a comment');
  t.equal(s(html`<!doctype html><title>${'<t>'}</title>`), '<!doctype html><title>&lt;t&gt;</title>');
});

t.test('between attributes only attr() goes; Html is not an attribute value', async (t) => {
  t.equal(s(html`<option value="1"${attr('selected', true)}>a</option>`), '<option value="1" selected>a</option>');
  t.equal(s(html`<option value="1"${attr('selected', false)}>a</option>`), '<option value="1">a</option>');
  t.equal(s(html`<input required ${attr('placeholder', '"x" <y>')}>`), '<input required  placeholder="&quot;x&quot; &lt;y&gt;">');
  t.equal(s(html`<a href="${href('/a')}"${attr('aria-current', 'page')}>a</a>`), '<a href="/a" aria-current="page">a</a>');
  t.equal(s(html`<p ${[attr('hidden', true), attr('id', 'n')]}>x</p>`), '<p  hidden id="n">x</p>');
  t.throws(() => html`<p${attr('hidden', true)}>x</p>`, /name/, 'straight after the tag name it could extend the name');
  t.throws(() => html`<option value="1"${' selected'}>a</option>`, /attr/, 'a string could add any attribute');
  t.throws(() => html`<p ${html` onclick="x"`}>x</p>`, /attr/, 'so could Html');
  t.throws(() => html`<p title="${html`<b>`}">x</p>`, TypeError, 'Html in an attribute value');
  t.throws(() => html`<p title="${['a', 'b']}">x</p>`, TypeError, 'an array in an attribute value');
  t.throws(() => html`<p>${attr('id', 'x')}</p>`, TypeError, 'an Attr in element content');
  t.throws(() => attr('onclick', 'x'), TypeError);
  t.throws(() => attr('style', 'x'), TypeError);
  t.throws(() => attr('href', 'javascript:alert(1)'), TypeError);
  t.throws(() => attr('x onload', 'y'), TypeError, 'a checked name');
  t.equal(String(attr('href', href('/a'))), ' href="/a"');
});

t.test('a template ends in element content: no half-open tag, attribute or script', async (t) => {
  t.throws(() => html`<a href="`, /ends inside/);
  t.throws(() => html`<p class="x`, /ends inside/);
  t.throws(() => html`<p`, /ends inside/);
  t.throws(() => html`<script>`, /ends inside/);
  t.throws(() => html`<!-- open`, /ends inside/);
  t.equal(s(html`</td></tr>`), '</td></tr>');
  t.equal(s(html`a < b and c > d`), 'a < b and c > d', 'a lone < in a literal is text');
});

t.test('inline SVG: text and attributes are escaped like HTML', async (t) => {
  const label = '<script>alert(1)</script>';
  t.equal(
    s(html`<svg viewBox="0 0 ${10} ${20}"><title>${label}</title><text x="${1.5}">${label}</text><rect fill="${'" onload="x'}"/></svg>`),
    '<svg viewBox="0 0 10 20"><title>&lt;script&gt;alert(1)&lt;/script&gt;</title><text x="1.5">&lt;script&gt;alert(1)&lt;/script&gt;</text><rect fill="&quot; onload=&quot;x"/></svg>',
  );
});

t.test('a template renders the same every time (its positions are worked out once)', async (t) => {
  const row = (name: string) => html`<tr><td title="${name}">${name}</td></tr>`;
  t.equal(s(row('<a>')), '<tr><td title="&lt;a&gt;">&lt;a&gt;</td></tr>');
  t.equal(s(row('b')), '<tr><td title="b">b</td></tr>');
  const bad = (v: string) => html`<a href="${v}">x</a>`;
  t.throws(() => bad('/a'), TypeError);
  t.throws(() => bad('/a'), TypeError, 'still refused the second time');
});

t.test('absoluteUrl() links an http(s) URL (an e-mail has no site), nothing else', async (t) => {
  t.equal(
    String(html`<a href="${absoluteUrl('https://lms.example.org/courses/7?x=1&y="2"')}">x</a>`),
    '<a href="https://lms.example.org/courses/7?x=1&amp;y=%222%22">x</a>',
    'escaped in the attribute',
  );
  for (const bad of ['javascript:alert(1)', 'data:text/html,<b>', '/courses/7', 'mailto:a@b.c', 'not a url']) {
    t.throws(() => absoluteUrl(bad), TypeError, `refused: ${bad}`);
  }
});
