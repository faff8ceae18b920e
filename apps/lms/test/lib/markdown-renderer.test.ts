import t from 'tap';
import { renderMarkdownNow } from '../../src/lib/markdown/render.js';
import { MarkdownRenderer, MarkdownUnavailableError } from '../../src/lib/markdown/renderer.js';
import { HOSTILE_MARKDOWN } from '../helpers/hostile-markdown.js';

// CI runs this file once (not again in the PostgreSQL pass): the Markdown renderer, no database.

// The renderer (lib/markdown/renderer.ts) with its real worker thread: a text rendered once
// whoever asks, the cache bounded, a text that takes too long stopped and shown as plain text, a
// worker that breaks replaced, too many waiting texts refused (the pages answer 503).

const long = (label: string) => `# ${label}\n\n${'Kalimat biasa dengan **tebal**. '.repeat(200)}`;

t.test('a long text is rendered by the worker once, whoever asks', async (t) => {
  const renderer = new MarkdownRenderer();
  t.teardown(() => renderer.close());
  const text = HOSTILE_MARKDOWN['a long table']!;
  const answers = await Promise.all(Array.from({ length: 5 }, () => renderer.render(text)));
  const expected = renderMarkdownNow(text);
  for (const answer of answers) t.same(answer, expected, 'the same HTML as rendering it here');
  t.same(renderer.stats().renders, { rendered: 1, too_deep: 0, timed_out: 0, failed: 0 }, 'one render');
  t.equal(renderer.stats().cacheHits, 4, 'four shared it');
  t.same(await renderer.render(text), expected);
  t.equal(renderer.stats().cacheHits, 5, 'and later from the cache');
  const deep = await renderer.render(HOSTILE_MARKDOWN['unclosed <a>']!);
  t.equal(deep.outcome, 'too_deep');
});

t.test('the cache holds at most its characters, least recently used out first', async (t) => {
  const [a, b, c] = ['a', 'b', 'c'].map(long) as [string, string, string];
  const size = renderMarkdownNow(a).html.length;
  const bound = Math.floor(size * 2.5);
  const renderer = new MarkdownRenderer({ cacheChars: bound });
  t.teardown(() => renderer.close());
  await renderer.render(a);
  await renderer.render(b);
  await renderer.render(a); // a is now the most recently used
  await renderer.render(c); // b goes
  t.ok(renderer.stats().cachedChars <= bound, `${renderer.stats().cachedChars} characters kept of ${bound}`);
  t.equal(renderer.stats().cachedEntries, 2);
  const before = renderer.stats().renders.rendered;
  await renderer.render(a);
  t.equal(renderer.stats().renders.rendered, before, 'a was kept');
  await renderer.render(b);
  t.equal(renderer.stats().renders.rendered, before + 1, 'b was rendered again');
});

t.test('a text that takes longer than the limit is shown as plain text; the next gets a new worker', async (t) => {
  const renderer = new MarkdownRenderer({ timeoutMs: 1, retryFailedAfterMs: 60_000 });
  t.teardown(() => renderer.close());
  const text = `${HOSTILE_MARKDOWN['emphasis delimiters']!.slice(0, 90_000)}<script>alert(1)</script>`;
  const slow = await renderer.render(text);
  t.equal(slow.outcome, 'timed_out');
  t.match(slow.html, /^<pre>\*+/, 'the text as it was typed');
  t.match(slow.html, '&lt;script&gt;alert(1)&lt;/script&gt;</pre>', 'escaped');
  t.same(await renderer.render(text), slow, 'shown so again without trying (retryFailedAfterMs)');
  t.equal(renderer.stats().renders.timed_out, 1);
  const other = await renderer.render(HOSTILE_MARKDOWN.links!);
  t.equal(other.outcome, 'timed_out', 'the next text met a new worker (and the same limit)');
  t.equal(renderer.stats().renders.timed_out, 2);

  const patient = new MarkdownRenderer({ timeoutMs: 1, retryFailedAfterMs: 0 });
  t.teardown(() => patient.close());
  await patient.render(text);
  await patient.render(text);
  t.equal(patient.stats().renders.timed_out, 2, 'with no waiting, a timed-out text is tried again');
});

t.test('a text that waited too long for a busy machine is shown as plain text once, then tried again', async (t) => {
  // The budget is the worker's CPU time (10 s here, far more than the text needs); the wait in all
  // is bounded apart: 1 ms, so the first answer comes before the worker could finish.
  const renderer = new MarkdownRenderer({ timeoutMs: 10_000, maxWaitMs: 1 });
  t.teardown(() => renderer.close());
  const text = long('waited');
  const first = await renderer.render(text);
  t.equal(first.outcome, 'timed_out', 'shown as plain text this once');
  t.match(first.html, /^<pre># waited/);
  t.equal(renderer.stats().cachedEntries, 0, 'not remembered as a text too costly to render');

  const patient = new MarkdownRenderer({ timeoutMs: 10_000, maxWaitMs: 120_000 });
  t.teardown(() => patient.close());
  t.equal((await patient.render(text)).outcome, 'rendered', 'with time to wait, the same text renders');
});

t.test('a worker that breaks fails its text and is replaced', async (t) => {
  const errors: Error[] = [];
  const renderer = new MarkdownRenderer({ workerHeapMb: 8, onWorkerError: (err) => errors.push(err) });
  t.teardown(() => renderer.close());
  const broken = await renderer.render(HOSTILE_MARKDOWN['a long table']!);
  t.equal(broken.outcome, 'failed', 'out of memory: shown as plain text');
  t.match(broken.html, /^<pre>\|a\|b\|/);
  t.ok(errors.length >= 1, `told: ${errors[0]?.message}`);
});

t.test('too many texts waiting: refused with a 503 to retry', async (t) => {
  const renderer = new MarkdownRenderer({ maxQueued: 1 });
  t.teardown(() => renderer.close());
  const first = renderer.render(long('first'));
  const refused = await renderer.render(long('second')).catch((err: unknown) => err);
  t.type(refused, MarkdownUnavailableError);
  t.equal((refused as MarkdownUnavailableError).reason, 'busy');
  t.equal((refused as MarkdownUnavailableError).retryAfterSeconds, 2, 'pages ask to retry in 2 s');
  t.equal(renderer.stats().busyRefusals, 1);
  t.equal((await first).outcome, 'rendered', 'the one waiting is rendered');
  t.equal((await renderer.render(long('first'))).outcome, 'rendered', 'and a text already rendered is never refused');
  t.equal((await renderer.render('short *text*')).outcome, 'rendered', 'nor a short one (rendered on the spot)');
});

t.test('closing: texts waiting are shown as plain text, later ones refused', async (t) => {
  const renderer = new MarkdownRenderer();
  const waiting = renderer.render(long('waiting'));
  await renderer.close();
  t.equal((await waiting).outcome, 'failed');
  const later = await renderer.render(long('later')).catch((err: unknown) => err);
  t.type(later, MarkdownUnavailableError);
  t.equal((later as MarkdownUnavailableError).reason, 'closed');
});
