import t from 'tap';
import { markdownToSafeHtml, VIDEO_FRAME_HOSTS } from '../../../src/pages/view/markdown.js';
import { findUnsafeHtml, XSS_VECTORS } from '../../helpers/unsafe-html.js';

// CI runs this file once (not again in the PostgreSQL pass): the Markdown view, no database.

// Authors' Markdown through markdown-it and sanitize-html: each vector below is what an author
// (or a partner's system) could store as chapter content; none may reach a learner's page able to
// run a script or frame another site. The checker parses the output as a browser would.

t.test('no crafted Markdown survives as something that runs or frames another site', async (t) => {
  for (const [name, markdown] of Object.entries(XSS_VECTORS)) {
    const out = markdownToSafeHtml(markdown);
    t.same(findUnsafeHtml(out, VIDEO_FRAME_HOSTS), [], `${name}: ${out}`);
  }
  // The checker itself finds each kind of thing it looks for (so an empty answer above means something).
  t.ok(findUnsafeHtml('<script>x</script>', VIDEO_FRAME_HOSTS).length > 0, 'the checker sees a script');
  t.ok(findUnsafeHtml('<img src=x onerror=y>', VIDEO_FRAME_HOSTS).length > 0, 'an event handler');
  t.ok(findUnsafeHtml('<a href="jav&#x09;ascript:x">a</a>', VIDEO_FRAME_HOSTS).length > 0, 'a javascript: URL through an entity');
  t.ok(findUnsafeHtml('<iframe src="https://evil.example/"></iframe>', VIDEO_FRAME_HOSTS).length > 0, 'a foreign frame');
});

t.test('what an author means is kept', async (t) => {
  const out = markdownToSafeHtml(
    [
      '# Judul',
      '',
      'Teks **tebal**, _miring_, `kode` dan [tautan](https://example.org/a?b=1 "judul").',
      '',
      '- satu',
      '- dua',
      '',
      '| a | b |',
      '|---|---|',
      '| 1 | 2 |',
      '',
      '![gambar](https://cdn.example/a.png)',
      '',
      '<iframe src="https://www.youtube-nocookie.com/embed/abc123" allowfullscreen></iframe>',
    ].join('\n'),
  );
  t.match(out, '<h1>Judul</h1>');
  t.match(out, '<strong>tebal</strong>');
  t.match(out, '<code>kode</code>');
  t.match(out, '<a href="https://example.org/a?b=1" title="judul" rel="noopener noreferrer nofollow">tautan</a>');
  t.match(out, '<li>satu</li>');
  t.match(out, '<td>1</td>');
  t.match(out, '<img src="https://cdn.example/a.png" alt="gambar" />');
  t.match(
    out,
    /<iframe src="https:\/\/www\.youtube-nocookie\.com\/embed\/abc123" allowfullscreen sandbox="allow-scripts allow-same-origin allow-presentation"/,
  );
  t.same(findUnsafeHtml(out, VIDEO_FRAME_HOSTS), []);
  t.equal(markdownToSafeHtml('a < b & c > d'), '<p>a &lt; b &amp; c &gt; d</p>\n', 'text stays text');
});
