import t from 'tap';
import { MARKDOWN_MAX_NESTING, nestsDeeperThan, renderMarkdownNow } from '../../src/lib/markdown/render.js';
import { VIDEO_FRAME_HOSTS } from '../../src/pages/view/markdown.js';
import { findUnsafeHtml, XSS_VECTORS } from '../helpers/unsafe-html.js';

// CI runs this file once (not again in the PostgreSQL pass): the Markdown renderer, no database.

// The nesting limit of chapters' HTML (lib/markdown/render.ts): sanitize-html's parser costs as
// much per tag as the elements open around it, so elements may nest MARKDOWN_MAX_NESTING deep;
// deeper, the author's HTML is shown as text. Markdown itself never reaches the limit.

const nested = (tag: string, depth: number) => `${`<${tag}>`.repeat(depth)}x${`</${tag}>`.repeat(depth)}`;

t.test('HTML nested up to the limit is rendered; one deeper is shown as text', async (t) => {
  const within = renderMarkdownNow(`# Judul\n\n${nested('em', MARKDOWN_MAX_NESTING - 1)}`);
  t.equal(within.outcome, 'rendered');
  t.match(within.html, `${'<em>'.repeat(MARKDOWN_MAX_NESTING - 1)}x`);
  const deeper = renderMarkdownNow(`# Judul\n\n**tebal** ${nested('em', MARKDOWN_MAX_NESTING + 1)}`);
  t.equal(deeper.outcome, 'too_deep');
  t.match(deeper.html, '<h1>Judul</h1>', 'the Markdown around it is still formatted');
  t.match(deeper.html, '<strong>tebal</strong>');
  t.match(deeper.html, '&lt;em&gt;&lt;em&gt;', "the author's HTML is text");
  t.notMatch(deeper.html, '<em>', 'not elements');
  const anchors = renderMarkdownNow('<a>'.repeat(33_333));
  t.equal(anchors.outcome, 'too_deep', "the issue's 100,000 characters of <a>");
  t.notMatch(anchors.html, '<a');
});

t.test('the depth is counted as the sanitizer parses: implied and void elements close', async (t) => {
  t.notOk(nestsDeeperThan(`<ul>${'<li>a'.repeat(1000)}</ul>`, 256), 'a list item closes the one before it');
  t.notOk(nestsDeeperThan('<p>a'.repeat(1000), 256), 'so does a paragraph');
  t.notOk(nestsDeeperThan(`<table>${'<tr><td>a'.repeat(1000)}</table>`, 256), 'and a table row');
  t.notOk(nestsDeeperThan('<br><img src=x><hr>'.repeat(1000), 256), 'void elements hold nothing');
  t.notOk(nestsDeeperThan(`<svg>${'<path/>'.repeat(1000)}</svg>`, 256), 'self-closing inside SVG');
  t.notOk(nestsDeeperThan(nested('div', 256), 256), '256 deep is the limit');
  t.ok(nestsDeeperThan(nested('div', 257), 256), '257 is over it');
  t.ok(nestsDeeperThan(`${'<b>'.repeat(300)}${'</i>'.repeat(300)}`, 256), 'close tags that match nothing close nothing');
  t.notOk(nestsDeeperThan('<b></b>'.repeat(10_000), 256), 'many elements one after another are not nested');
});

t.test('Markdown blocks stay within the limit (markdown-it nests 100 at most); emphasis may not', async (t) => {
  const texts = {
    quotes: `${'>'.repeat(400)} a`,
    lists: Array.from({ length: 400 }, (_, i) => `${'  '.repeat(i)}- a`).join('\n'),
    'lists in quotes': Array.from({ length: 300 }, (_, i) => `${'> '.repeat(i)}- a`).join('\n'),
    'links in emphasis': `${'**[a'.repeat(200)}${'](https://e.example/)**'.repeat(200)}`,
  };
  for (const [name, text] of Object.entries(texts)) t.equal(renderMarkdownNow(text).outcome, 'rendered', name);
  const emphasis = renderMarkdownNow(`# Judul\n\n${'*a '.repeat(400)}${'a* '.repeat(400)}`);
  t.equal(emphasis.outcome, 'too_deep', 'emphasis nests as deep as it is written (markdown-it pairs it after its nesting check)');
  t.match(emphasis.html, /^<pre># Judul\n\n\*a \*a /, 'deep even without HTML: shown as typed');
});

t.test('text shown for nesting too deep keeps every XSS guarantee', async (t) => {
  const tooDeep = '<em>'.repeat(MARKDOWN_MAX_NESTING + 1);
  for (const [name, vector] of Object.entries(XSS_VECTORS)) {
    for (const text of [`${tooDeep}${vector}`, `${vector}\n\n${tooDeep}`]) {
      const out = renderMarkdownNow(text);
      t.equal(out.outcome, 'too_deep', name);
      t.same(findUnsafeHtml(out.html, VIDEO_FRAME_HOSTS), [], `${name}: ${out.html.slice(0, 200)}`);
    }
  }
});
