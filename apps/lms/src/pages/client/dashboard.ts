/*
 * The pages' only script, run in the browser: the Kunci API section (create a key and show it
 * once, copy it, revoke with a confirmation). It calls the JSON API with `x-requested-with`, which
 * the CSRF plugin requires of session callers. Values go into the page as text only (textContent,
 * setAttribute), never as HTML.
 *
 * It speaks the page's language: its texts, the page's locale and date options come in the
 * form's `data-script` attribute (no inline script: the CSP forbids it; ./api-keys-page.d.ts
 * says what is there), the labels of the cells it adds from the table's own headers. The JSON
 * API's error texts are English, so errors are told by their status, in the page's language.
 *
 * A classic script (no import or export: the page loads it with `<script src defer>`), checked
 * with the DOM library by tsconfig.client.json and compiled by the app's build to
 * dist/pages/client/dashboard.js, which the LMS serves at /dashboard/assets/dashboard.js.
 */
// biome-ignore lint/suspicious/noRedundantUseStrict: a classic script (see above), not a module: strict mode is not implied.
'use strict';

type ApiKeysScriptData = import('./api-keys-page').ApiKeysScriptData;

interface ApiKeyJson {
  id: number;
  name: string;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

(() => {
  const form = document.getElementById('create-key') as HTMLFormElement | null;
  if (!form) return;
  const pageData = JSON.parse(form.getAttribute('data-script') ?? '{}') as ApiKeysScriptData;
  const text = pageData.messages;
  const dateTime = new Intl.DateTimeFormat(pageData.locale, pageData.dateTimeOptions);
  const columns = Array.from(document.querySelectorAll('#key-table thead th'), (th) => th.textContent ?? '');
  // biome-ignore lint/style/noNonNullAssertion: the page that loads this script renders these elements with the form.
  const table = document.querySelector<HTMLTableSectionElement>('#key-table tbody')!;
  // biome-ignore lint/style/noNonNullAssertion: the page that loads this script renders these elements with the form.
  const errorBox = document.getElementById('key-error')!;
  // biome-ignore lint/style/noNonNullAssertion: the page that loads this script renders these elements with the form.
  const newKey = document.getElementById('new-key')!;
  // biome-ignore lint/style/noNonNullAssertion: called only with ids of elements the page renders.
  const byId = (id: string) => document.getElementById(id)!;

  function showError(text: string): void {
    errorBox.textContent = text;
    errorBox.hidden = false;
  }

  /** A message with its `{name}` placeholders filled in (as the server's `fill`). */
  function fill(template: string, values: Record<string, string>): string {
    return template.replace(/\{(\w+)\}/g, (placeholder, name: string) =>
      // biome-ignore lint/suspicious/noPrototypeBuiltins: Object.hasOwn is ES2022; this script targets ES2020 browsers.
      Object.prototype.hasOwnProperty.call(values, name) ? values[name] : placeholder,
    );
  }

  /** What a failed call means to the person, by its status. */
  function failure(status: number): string {
    switch (status) {
      case 400:
        return text.badName;
      case 401:
        return text.sessionEnded;
      case 403:
        return text.notAllowed;
      case 404:
        return text.notFound;
      case 429:
        return text.tooManyRequests;
      default:
        return fill(text.failed, { status: String(status) });
    }
  }

  async function call(method: string, url: string, body?: unknown): Promise<Record<string, unknown>> {
    const headers: Record<string, string> = { 'x-requested-with': 'fetch', accept: 'application/json' };
    const init: RequestInit = { method, credentials: 'same-origin', headers };
    if (body !== undefined) {
      headers['content-type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    let res: Response;
    try {
      res = await fetch(url, init);
    } catch {
      throw new Error(text.offline);
    }
    const data = (await res.json().catch(() => ({}))) as Record<string, unknown>;
    if (!res.ok) throw new Error(failure(res.status));
    return data;
  }

  function when(iso: string | null): string {
    if (!iso) return text.never;
    const zone = pageData.zoneName;
    return dateTime
      .formatToParts(new Date(iso))
      .map((part) => (zone && part.type === 'timeZoneName' ? zone : part.value))
      .join('');
  }

  function cell(row: HTMLTableRowElement, column: number, value: string, code = false): HTMLTableCellElement {
    const td = document.createElement('td');
    td.setAttribute('data-label', columns[column] ?? '');
    if (code) {
      const c = document.createElement('code');
      c.textContent = value;
      td.appendChild(c);
    } else {
      td.textContent = value;
    }
    row.appendChild(td);
    return td;
  }

  function revokeButton(id: number, name: string): HTMLButtonElement {
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'danger';
    button.setAttribute('data-revoke', String(id));
    button.setAttribute('data-name', name);
    button.textContent = text.revoke;
    const hidden = document.createElement('span');
    hidden.className = 'sr-only';
    hidden.textContent = ` ${name}`;
    button.appendChild(hidden);
    return button;
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    errorBox.hidden = true;
    const input = byId('key-name') as HTMLInputElement;
    const name = input.value.trim();
    if (!name) {
      showError(text.nameRequired);
      input.focus();
      return;
    }
    // biome-ignore lint/style/noNonNullAssertion: the create form renders its submit button.
    const submit = form.querySelector<HTMLButtonElement>('button[type=submit]')!;
    submit.disabled = true;
    call('POST', '/api/api-keys', { name })
      .then((data) => {
        const key = data.apiKey as ApiKeyJson & { key: string };
        byId('new-key-name').textContent = `"${key.name}"`;
        byId('new-key-value').textContent = key.key;
        byId('copy-status').textContent = '';
        newKey.hidden = false;
        const row = document.createElement('tr');
        row.setAttribute('data-key-id', String(key.id));
        cell(row, 0, key.name);
        cell(row, 1, `${key.prefix}\u2026`, true);
        cell(row, 2, when(key.createdAt));
        cell(row, 3, when(key.lastUsedAt));
        const state = cell(row, 4, '');
        state.className = 'key-state';
        state.appendChild(revokeButton(key.id, key.name));
        table.insertBefore(row, table.firstChild);
        byId('no-keys').hidden = true;
        input.value = '';
        byId('copy-key').focus();
      })
      .catch((err: Error) => showError(err.message))
      .then(() => {
        submit.disabled = false;
      });
  });

  byId('copy-key').addEventListener('click', () => {
    const value = byId('new-key-value').textContent ?? '';
    const status = byId('copy-status');
    const done = () => {
      status.textContent = text.copied;
    };
    const fallback = () => {
      const range = document.createRange();
      range.selectNodeContents(byId('new-key-value'));
      const selection = window.getSelection();
      selection?.removeAllRanges();
      selection?.addRange(range);
      status.textContent = text.selectToCopy;
    };
    // navigator.clipboard is missing outside secure contexts, whatever the type says.
    const clipboard = navigator.clipboard as Clipboard | undefined;
    if (clipboard && typeof clipboard.writeText === 'function') clipboard.writeText(value).then(done, fallback);
    else fallback();
  });

  table.addEventListener('click', (event) => {
    const button = (event.target as Element).closest<HTMLButtonElement>('button[data-revoke]');
    if (!button) return;
    const id = button.getAttribute('data-revoke') ?? '';
    const name = button.getAttribute('data-name') ?? '';
    if (!window.confirm(fill(text.confirmRevoke, { name }))) return;
    errorBox.hidden = true;
    button.disabled = true;
    call('DELETE', `/api/api-keys/${encodeURIComponent(id)}`)
      .then((data) => {
        // biome-ignore lint/style/noNonNullAssertion: a revoke button sits in its table cell.
        const state = button.parentNode!;
        const badge = document.createElement('span');
        badge.className = 'badge revoked';
        badge.textContent = fill(text.revoked, { date: when((data.apiKey as ApiKeyJson).revokedAt) });
        state.replaceChild(badge, button);
      })
      .catch((err: Error) => {
        button.disabled = false;
        showError(err.message);
      });
  });
})();
