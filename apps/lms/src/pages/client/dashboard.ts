/*
 * The pages' only script, run in the browser: the Kunci API section (create a key and show it
 * once, copy it, revoke with a confirmation). It calls the JSON API with `x-requested-with`, which
 * the CSRF plugin requires of session callers. Values go into the page as text only (textContent,
 * setAttribute), never as HTML.
 *
 * A classic script (no import or export: the page loads it with `<script src defer>`), checked
 * with the DOM library by tsconfig.client.json and compiled by the app's build to
 * dist/pages/client/dashboard.js, which the LMS serves at /dashboard/assets/dashboard.js.
 */
'use strict';

interface ApiKeyJson {
  id: number;
  name: string;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

(function () {
  const form = document.getElementById('create-key') as HTMLFormElement | null;
  if (!form) return;
  const table = document.querySelector<HTMLTableSectionElement>('#key-table tbody')!;
  const errorBox = document.getElementById('key-error')!;
  const newKey = document.getElementById('new-key')!;
  const byId = (id: string) => document.getElementById(id)!;

  function showError(text: string): void {
    errorBox.textContent = text;
    errorBox.hidden = false;
  }

  async function call(method: string, url: string, body?: unknown): Promise<Record<string, unknown>> {
    const headers: Record<string, string> = { 'x-requested-with': 'fetch', accept: 'application/json' };
    const init: RequestInit = { method, credentials: 'same-origin', headers };
    if (body !== undefined) {
      headers['content-type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    const res = await fetch(url, init);
    const data = (await res.json().catch(() => ({}))) as Record<string, unknown>;
    if (res.status === 401) throw new Error('Your session has ended. Please sign in again.');
    if (!res.ok) throw new Error(typeof data.error === 'string' ? data.error : `The request failed (${res.status}).`);
    return data;
  }

  function when(iso: string | null): string {
    return iso ? `${iso.slice(0, 16).replace('T', ' ')} UTC` : 'Never';
  }

  function cell(row: HTMLTableRowElement, label: string, text: string, code = false): HTMLTableCellElement {
    const td = document.createElement('td');
    td.setAttribute('data-label', label);
    if (code) {
      const c = document.createElement('code');
      c.textContent = text;
      td.appendChild(c);
    } else {
      td.textContent = text;
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
    button.textContent = 'Revoke';
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
      showError('Give the key a name.');
      input.focus();
      return;
    }
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
        cell(row, 'Name', key.name);
        cell(row, 'Prefix', `${key.prefix}\u2026`, true);
        cell(row, 'Created', when(key.createdAt));
        cell(row, 'Last used', when(key.lastUsedAt));
        const state = cell(row, 'State', '');
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
      status.textContent = 'Copied.';
    };
    const fallback = () => {
      const range = document.createRange();
      range.selectNodeContents(byId('new-key-value'));
      const selection = window.getSelection();
      selection?.removeAllRanges();
      selection?.addRange(range);
      status.textContent = 'Selected: press Ctrl+C (or Cmd+C) to copy.';
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
    if (!window.confirm(`Revoke the key "${name}"? Systems using it will stop working at once. This cannot be undone.`)) return;
    errorBox.hidden = true;
    button.disabled = true;
    call('DELETE', `/api/api-keys/${encodeURIComponent(id)}`)
      .then((data) => {
        const state = button.parentNode!;
        const badge = document.createElement('span');
        badge.className = 'badge revoked';
        badge.textContent = `Revoked ${when((data.apiKey as ApiKeyJson).revokedAt)}`;
        state.replaceChild(badge, button);
      })
      .catch((err: Error) => {
        button.disabled = false;
        showError(err.message);
      });
  });
})();
