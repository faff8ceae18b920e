/*
 * The learner's chapter page script (../learning/chapter.ts): while the page is visible, a
 * heartbeat every 30 s to POST /api/learning/chapters/{id}/heartbeat with `{"visible":true}` and
 * `x-requested-with` (the CSRF plugin's rule for session callers). The server measures the time
 * between beats (capped, docs/architecture.md "Time on a chapter"); this script sends no figure of
 * its own. It shows what the answer says is left before the chapter may be marked complete, in the
 * page's language: the texts come in the `data-script` attribute of #chapter-time (no inline
 * script: the CSP forbids it), and go into the page as text only.
 *
 * A classic script (no import or export: the page loads it with `<script src defer>`), compiled by
 * the app's build to dist/pages/client/chapter-time.js, served at /dashboard/assets/chapter-time.js.
 */
// biome-ignore lint/suspicious/noRedundantUseStrict: a classic script (see above), not a module: strict mode is not implied.
'use strict';

(() => {
  const box = document.getElementById('chapter-time');
  if (!box) return;
  const data = JSON.parse(box.getAttribute('data-script') ?? '{}') as {
    url: string;
    left: string;
    met: string;
    units: { min: string; sec: string };
  };
  const left = document.getElementById('chapter-time-left');
  const wait = (seconds: number): string => {
    const m = Math.floor(seconds / 60);
    const s = seconds % 60;
    if (m === 0) return `${s} ${data.units.sec}`;
    return s === 0 ? `${m} ${data.units.min}` : `${m} ${data.units.min} ${s} ${data.units.sec}`;
  };
  const beat = async (): Promise<void> => {
    if (document.visibilityState !== 'visible') return;
    try {
      const res = await fetch(data.url, {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'content-type': 'application/json', 'x-requested-with': 'chapter-page' },
        body: '{"visible":true}',
      });
      if (!res.ok) return;
      const body = (await res.json()) as { time: { requiredSeconds: number | null; remainingSeconds: number } };
      if (left && body.time.requiredSeconds !== null) {
        left.textContent = body.time.remainingSeconds > 0 ? data.left.replace('{wait}', wait(body.time.remainingSeconds)) : data.met;
      }
    } catch {
      // Offline for a moment: the next beat that arrives is credited from the last one (at most 60 s).
    }
  };
  void beat();
  setInterval(() => void beat(), 30_000);
})();
