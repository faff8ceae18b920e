/*
 * The course studio's script (every studio page loads it; each part starts only where its
 * elements are). The pages work without it: it saves typing and clicks (docs/authoring.md, "The
 * studio's script"): the chapter editor's toolbar at the cursor, live preview (the server's own
 * renderer and sanitizer), picture upload at the cursor, video at the cursor (the form's `cursor`
 * field), draft in localStorage and warning before leaving unsaved; the outline's Up/Down sent
 * without a reload (focus kept) and drag and drop; the quiz's added questions and true/false
 * options. Its words come in `data-*` attributes (no inline script: the CSP forbids it); the HTML
 * it puts into the page is only what the server rendered and sanitized. A classic script (no
 * import or export), compiled by tsconfig.client.json, served at /dashboard/assets/studio-editor.js.
 */
// biome-ignore lint/suspicious/noRedundantUseStrict: a classic script (see above), not a module: strict mode is not implied.
'use strict';

interface EditorData {
  chapterId: number;
  previewUrl: string;
  uploadUrl: string;
  /** Whether the page shows typed text that is not saved (a preview or a refused save). */
  unsaved: boolean;
  words: Record<string, string>;
}

interface Draft {
  name: string;
  content: string;
  at: number;
}

(() => {
  const form = document.getElementById('chapter-form') as HTMLFormElement | null;
  if (form) chapterEditor(form);
  const outline = document.querySelector<HTMLOListElement>('ol.modules');
  if (outline) outlineOrder();
  const quiz = document.querySelector<HTMLFormElement>('form.quiz-form');
  if (quiz) {
    trueFalse(quiz);
    addQuestion(quiz);
  }

  /**
   * "Save and add a question" becomes "Add a question": a blank question (a copy of the last one,
   * emptied and renumbered) added to the form, no save and no reload; Save sends them all.
   */
  function addQuestion(quiz: HTMLFormElement): void {
    const more = quiz.querySelector<HTMLButtonElement>('button[value="more"]');
    const count = quiz.querySelector<HTMLInputElement>('input[name="count"]');
    const words = JSON.parse(quiz.getAttribute('data-add-question') ?? '{}') as { label: string; legend: string };
    if (!more || !count) return;
    more.textContent = words.label;
    more.addEventListener('click', (event) => {
      const questions = quiz.querySelectorAll<HTMLFieldSetElement>('fieldset.question');
      const last = questions[questions.length - 1];
      if (!last) return;
      event.preventDefault();
      const n = Number(count.value);
      const fresh = last.cloneNode(true) as HTMLFieldSetElement;
      const renamed = (value: string) => value.replace(/q\d+_/g, `q${n}_`);
      for (const el of Array.from(fresh.querySelectorAll('[name], [id], [for], [aria-describedby]'))) {
        for (const name of ['name', 'id', 'for', 'aria-describedby']) {
          const value = el.getAttribute(name);
          if (value !== null) el.setAttribute(name, renamed(value));
        }
      }
      for (const problem of Array.from(fresh.querySelectorAll('.field-error'))) {
        problem.previousElementSibling?.remove();
        problem.remove();
      }
      for (const el of Array.from(fresh.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>('input, textarea'))) {
        el.removeAttribute('aria-invalid');
        el.value = el.name.endsWith('_points') ? '1' : '';
      }
      const kind = fresh.querySelector<HTMLSelectElement>('select');
      if (kind) kind.selectedIndex = 0;
      const legend = fresh.querySelector('legend');
      if (legend) legend.textContent = words.legend.replace(/\d+/, String(n + 1));
      last.after(fresh);
      count.value = String(n + 1);
      fresh.querySelector<HTMLTextAreaElement>('textarea')?.focus();
    });
  }

  /** A question turned true/false with no options yet gets the two, in the page's language. */
  function trueFalse(quiz: HTMLFormElement): void {
    const [yes, no] = JSON.parse(quiz.getAttribute('data-true-false') ?? '[]') as string[];
    quiz.addEventListener('change', (event) => {
      const kind = event.target as HTMLSelectElement;
      if (!/^q\d+_type$/.test(kind.name) || kind.value !== 'true_false') return;
      const options = quiz.querySelector<HTMLTextAreaElement>(`textarea[name="${kind.name.replace('_type', '_options')}"]`);
      if (options && options.value.trim() === '') options.value = `${yes}\n${no}`;
    });
  }

  function chapterEditor(form: HTMLFormElement): void {
    const data = JSON.parse(form.getAttribute('data-editor') ?? '{}') as EditorData;
    const w = data.words;
    const text = form.querySelector<HTMLTextAreaElement>('textarea[name="content"]');
    const name = form.querySelector<HTMLInputElement>('input[name="name"]');
    const cursor = form.querySelector<HTMLInputElement>('input[name="cursor"]');
    const toolbar = form.querySelector<HTMLElement>('.md-toolbar');
    const status = form.querySelector<HTMLElement>('.editor-status');
    const file = document.getElementById('editor-file') as HTMLInputElement | null;
    const preview = document.querySelector<HTMLElement>('.chapter-preview .markdown');
    const previewTitle = document.querySelector<HTMLElement>('.chapter-preview h2');
    if (!text || !name || !cursor || !toolbar || !status || !file) return;
    const area = text;
    const key = `lms-chapter-draft:${data.chapterId}`;
    const initial = { name: name.value, content: area.value };
    let leaving = false;
    let dirty = data.unsaved;
    toolbar.hidden = false;

    const say = (message: string) => {
      status.textContent = message;
    };
    const isDirty = () => dirty || area.value !== initial.content || name.value !== initial.name;

    // The draft: kept as it is typed, dropped once saved, offered back on the next visit.
    const saved = new URLSearchParams(location.search).get('saved') === '1';
    if (saved) localStorage.removeItem(key);
    const stored = readDraft();
    if (!saved && !data.unsaved && stored && (stored.content !== area.value || stored.name !== name.value)) {
      area.value = stored.content;
      name.value = stored.name;
      dirty = true;
      say(w.draftRestored);
      const discard = document.createElement('button');
      discard.type = 'button';
      discard.className = 'secondary';
      discard.textContent = w.discardDraft;
      discard.addEventListener('click', () => {
        area.value = initial.content;
        name.value = initial.name;
        dirty = false;
        localStorage.removeItem(key);
        discard.remove();
        say('');
        schedulePreview();
      });
      toolbar.append(discard);
    }

    function readDraft(): Draft | null {
      try {
        const found = JSON.parse(localStorage.getItem(key) ?? 'null') as Draft | null;
        return found && typeof found.content === 'string' && typeof found.name === 'string' ? found : null;
      } catch {
        return null;
      }
    }
    let draftTimer = 0;
    const keepDraft = () => {
      window.clearTimeout(draftTimer);
      draftTimer = window.setTimeout(() => {
        try {
          if (isDirty()) localStorage.setItem(key, JSON.stringify({ name: name.value, content: area.value, at: Date.now() }));
        } catch {
          // A full or refused storage: the warning before leaving still holds.
        }
      }, 400);
    };

    window.addEventListener('beforeunload', (event) => {
      if (leaving || !isDirty()) return;
      event.preventDefault();
      // Older browsers show the dialog only when returnValue is set.
      event.returnValue = w.leaveWarning;
    });
    form.addEventListener('submit', () => {
      leaving = true;
      cursor.value = String(area.selectionStart);
    });

    /** Puts `before` + (the selection or `sample`) + `after` at the cursor, the inserted text selected. */
    function wrap(before: string, after: string, sample: string): void {
      const start = area.selectionStart;
      const end = area.selectionEnd;
      const chosen = area.value.slice(start, end) || sample;
      area.focus();
      area.setRangeText(`${before}${chosen}${after}`, start, end, 'end');
      area.setSelectionRange(start + before.length, start + before.length + chosen.length);
      changed();
    }
    /** Puts a block (a picture's line) at the cursor, on a line of its own. */
    function insertBlock(block: string): void {
      const start = area.selectionStart;
      const end = area.selectionEnd;
      const head = area.value.slice(0, start);
      const tail = area.value.slice(end);
      const lead = head === '' || head.endsWith('\n\n') ? '' : head.endsWith('\n') ? '\n' : '\n\n';
      const trail = tail.startsWith('\n\n') ? '' : tail.startsWith('\n') || tail === '' ? '\n' : '\n\n';
      const piece = `${lead}${block}${trail}`;
      area.focus();
      area.setRangeText(piece, start, end, 'end');
      changed();
    }
    /** Prefixes the lines of the selection (or the cursor's line) with `prefix`. */
    function linePrefix(prefix: string, sample: string): void {
      const start = area.value.lastIndexOf('\n', area.selectionStart - 1) + 1;
      const end = area.selectionEnd;
      const lines = area.value.slice(start, end) || sample;
      const done = lines
        .split('\n')
        .map((l) => `${prefix}${l}`)
        .join('\n');
      area.focus();
      area.setRangeText(done, start, Math.max(end, start), 'end');
      changed();
    }

    function changed(): void {
      keepDraft();
      schedulePreview();
    }
    area.addEventListener('input', changed);
    name.addEventListener('input', keepDraft);
    area.addEventListener('keydown', (event) => {
      if (!(event.ctrlKey || event.metaKey)) return;
      if (event.key === 'b') wrap('**', '**', w.boldSample);
      else if (event.key === 'i') wrap('_', '_', w.italicSample);
      else return;
      event.preventDefault();
    });

    toolbar.addEventListener('click', (event) => {
      const button = (event.target as HTMLElement).closest<HTMLButtonElement>('button[data-md]');
      if (!button) return;
      switch (button.getAttribute('data-md')) {
        case 'bold':
          return wrap('**', '**', w.boldSample);
        case 'italic':
          return wrap('_', '_', w.italicSample);
        case 'heading':
          return linePrefix('## ', w.headingSample);
        case 'list':
          return linePrefix('- ', w.listSample);
        case 'link': {
          const url = window.prompt(w.linkAsk, 'https://');
          if (url && /^(https?:\/\/|mailto:)/i.test(url.trim())) wrap('[', `](${url.trim()})`, w.linkSample);
          return;
        }
        case 'picture':
          return file.click();
        case 'video': {
          // The form's own action puts the player at the cursor (the server checks the host).
          const video = form.querySelector<HTMLInputElement>('input[name="videoUrl"]');
          const submit = form.querySelector<HTMLButtonElement>('button[value="video"]');
          if (!video || !submit) return;
          if (video.value.trim() === '') {
            const url = window.prompt(w.videoAsk, '');
            if (!url) return;
            video.value = url.trim();
          }
          // The submit listener sends the cursor (the selection stays while the prompt is open).
          form.requestSubmit(submit);
          return;
        }
      }
    });

    file.addEventListener('change', async () => {
      const chosen = file.files?.[0];
      if (!chosen) return;
      const at = { start: area.selectionStart, end: area.selectionEnd };
      say(w.uploading);
      const body = new FormData();
      body.append('file', chosen);
      try {
        const response = await fetch(data.uploadUrl, {
          method: 'POST',
          body,
          credentials: 'same-origin',
          headers: { accept: 'application/json', 'x-requested-with': 'studio-editor' },
        });
        if (response.status !== 201) {
          // The refusal is the pictures page, in the page's language: its message, as text.
          const page = new DOMParser().parseFromString(await response.text(), 'text/html');
          say(`${w.uploadFailed} ${page.querySelector('.error p')?.textContent ?? ''}`.trim());
          return;
        }
        const uploaded = (await response.json()) as { markdown: string };
        area.setSelectionRange(at.start, at.end);
        insertBlock(uploaded.markdown);
        say(w.uploaded);
      } catch {
        say(w.uploadFailed);
      } finally {
        file.value = '';
      }
    });

    // The live preview: asked a moment after typing stops, the latest answer shown.
    let previewTimer = 0;
    let asked = 0;
    function schedulePreview(): void {
      if (!preview) return;
      window.clearTimeout(previewTimer);
      previewTimer = window.setTimeout(renderPreview, 500);
    }
    async function renderPreview(): Promise<void> {
      if (!preview) return;
      const mine = ++asked;
      try {
        const response = await fetch(data.previewUrl, {
          method: 'POST',
          credentials: 'same-origin',
          headers: { 'content-type': 'application/json', 'x-requested-with': 'studio-editor' },
          body: JSON.stringify({ content: area.value }),
        });
        if (mine !== asked) return;
        const answer = (await response.json()) as { html?: string; note?: string | null; message?: string };
        if (!response.ok || typeof answer.html !== 'string') {
          say(answer.message ?? w.previewFailed);
          return;
        }
        // Sanitized by the server exactly as the learner's page is (lib/markdown/render.ts).
        preview.innerHTML = answer.html;
        if (previewTitle) previewTitle.textContent = w.livePreview;
        if (answer.note) say(answer.note);
      } catch {
        if (mine === asked) say(w.previewFailed);
      }
    }
  }

  function outlineOrder(): void {
    /** Sends a move form (Up/Down) and redraws the outline from the answer, the focus kept. */
    async function send(move: HTMLFormElement): Promise<boolean> {
      const response = await fetch(move.action, {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(new FormData(move) as unknown as Record<string, string>).toString(),
      });
      return response.ok;
    }
    async function redraw(focusAction: string | null, direction: string | null): Promise<void> {
      const response = await fetch(location.pathname, { credentials: 'same-origin' });
      const fresh = new DOMParser().parseFromString(await response.text(), 'text/html').querySelector('ol.modules');
      const current = document.querySelector('ol.modules');
      if (!fresh || !current) return;
      current.replaceWith(document.importNode(fresh, true));
      setUp();
      if (!focusAction) return;
      const forms = Array.from(document.querySelectorAll<HTMLFormElement>('ol.modules form.move'));
      const same = forms.filter((f) => f.getAttribute('action') === focusAction);
      const target = same.find((f) => f.querySelector<HTMLInputElement>('input[name="direction"]')?.value === direction) ?? same[0];
      target?.querySelector('button')?.focus();
    }
    function setUp(): void {
      for (const move of Array.from(document.querySelectorAll<HTMLFormElement>('ol.modules form.move'))) {
        move.addEventListener('submit', async (event) => {
          event.preventDefault();
          const direction = move.querySelector<HTMLInputElement>('input[name="direction"]')?.value ?? null;
          if (await send(move)) await redraw(move.getAttribute('action'), direction);
          else location.reload();
        });
      }
      draggable('ol.modules > li[data-move]');
      draggable('ol.chapters > li[data-move]');
    }
    /** Items dragged within their list: the drop sent as Up/Down steps, then the outline redrawn. */
    function draggable(selector: string): void {
      let dragged: HTMLElement | null = null;
      for (const item of Array.from(document.querySelectorAll<HTMLElement>(selector))) {
        item.draggable = true;
        item.addEventListener('dragstart', (event) => {
          dragged = item;
          event.stopPropagation();
          event.dataTransfer?.setData('text/plain', item.getAttribute('data-move') ?? '');
        });
        item.addEventListener('dragover', (event) => {
          if (dragged && dragged !== item && dragged.parentElement === item.parentElement) event.preventDefault();
        });
        item.addEventListener('drop', async (event) => {
          if (!dragged || dragged === item || dragged.parentElement !== item.parentElement) return;
          event.preventDefault();
          event.stopPropagation();
          const siblings = Array.from(item.parentElement?.children ?? []);
          const steps = siblings.indexOf(item) - siblings.indexOf(dragged);
          const action = dragged.getAttribute('data-move') ?? '';
          const step = document.createElement('form');
          step.action = action;
          const direction = document.createElement('input');
          direction.name = 'direction';
          direction.value = steps < 0 ? 'up' : 'down';
          step.append(direction);
          dragged = null;
          for (let i = 0; i < Math.abs(steps); i++) if (!(await send(step))) break;
          await redraw(null, null);
        });
      }
    }
    setUp();
  }
})();
