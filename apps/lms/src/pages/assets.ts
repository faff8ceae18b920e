import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';

export const DASHBOARD_SCRIPT_PATH = '/dashboard/assets/dashboard.js';

/**
 * The pages' only script: the Kunci API section (create a key and show it once, copy it, revoke
 * with a confirmation). It calls the JSON API with `x-requested-with`, which the CSRF plugin
 * requires of session callers. Plain ES2017, no build step; values go into the page as text only.
 */
export const DASHBOARD_SCRIPT = `'use strict';
(function () {
  var form = document.getElementById('create-key');
  if (!form) return;
  var table = document.querySelector('#key-table tbody');
  var errorBox = document.getElementById('key-error');
  var newKey = document.getElementById('new-key');

  function showError(text) {
    errorBox.textContent = text;
    errorBox.hidden = false;
  }
  function call(method, url, body) {
    var init = { method: method, credentials: 'same-origin', headers: { 'x-requested-with': 'fetch', accept: 'application/json' } };
    if (body !== undefined) {
      init.headers['content-type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    return fetch(url, init).then(function (res) {
      return res.json().catch(function () { return {}; }).then(function (data) {
        if (res.status === 401) throw new Error('Your session has ended. Please sign in again.');
        if (!res.ok) throw new Error(data.error || ('The request failed (' + res.status + ').'));
        return data;
      });
    });
  }
  function when(iso) {
    return iso ? iso.slice(0, 16).replace('T', ' ') + ' UTC' : 'Never';
  }
  function cell(row, label, text, code) {
    var td = document.createElement('td');
    td.setAttribute('data-label', label);
    if (code) {
      var c = document.createElement('code');
      c.textContent = text;
      td.appendChild(c);
    } else {
      td.textContent = text;
    }
    row.appendChild(td);
    return td;
  }
  function revokeButton(id, name) {
    var button = document.createElement('button');
    button.type = 'button';
    button.className = 'danger';
    button.setAttribute('data-revoke', String(id));
    button.setAttribute('data-name', name);
    button.textContent = 'Revoke';
    var hidden = document.createElement('span');
    hidden.className = 'sr-only';
    hidden.textContent = ' ' + name;
    button.appendChild(hidden);
    return button;
  }

  form.addEventListener('submit', function (event) {
    event.preventDefault();
    errorBox.hidden = true;
    var input = document.getElementById('key-name');
    var name = input.value.trim();
    if (!name) { showError('Give the key a name.'); input.focus(); return; }
    var submit = form.querySelector('button[type=submit]');
    submit.disabled = true;
    call('POST', '/api/api-keys', { name: name }).then(function (data) {
      var key = data.apiKey;
      document.getElementById('new-key-name').textContent = '"' + key.name + '"';
      document.getElementById('new-key-value').textContent = key.key;
      document.getElementById('copy-status').textContent = '';
      newKey.hidden = false;
      var row = document.createElement('tr');
      row.setAttribute('data-key-id', String(key.id));
      cell(row, 'Name', key.name);
      cell(row, 'Prefix', key.prefix + '\\u2026', true);
      cell(row, 'Created', when(key.createdAt));
      cell(row, 'Last used', when(key.lastUsedAt));
      var state = cell(row, 'State', '');
      state.className = 'key-state';
      state.appendChild(revokeButton(key.id, key.name));
      table.insertBefore(row, table.firstChild);
      document.getElementById('no-keys').hidden = true;
      input.value = '';
      document.getElementById('copy-key').focus();
    }).catch(function (err) { showError(err.message); })
      .then(function () { submit.disabled = false; });
  });

  document.getElementById('copy-key').addEventListener('click', function () {
    var value = document.getElementById('new-key-value').textContent;
    var status = document.getElementById('copy-status');
    var done = function () { status.textContent = 'Copied.'; };
    var fallback = function () {
      var range = document.createRange();
      range.selectNodeContents(document.getElementById('new-key-value'));
      var selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
      status.textContent = 'Selected: press Ctrl+C (or Cmd+C) to copy.';
    };
    if (navigator.clipboard && navigator.clipboard.writeText) navigator.clipboard.writeText(value).then(done, fallback);
    else fallback();
  });

  table.addEventListener('click', function (event) {
    var button = event.target.closest('button[data-revoke]');
    if (!button) return;
    var id = button.getAttribute('data-revoke');
    var name = button.getAttribute('data-name');
    if (!window.confirm('Revoke the key "' + name + '"? Systems using it will stop working at once. This cannot be undone.')) return;
    errorBox.hidden = true;
    button.disabled = true;
    call('DELETE', '/api/api-keys/' + encodeURIComponent(id)).then(function (data) {
      var state = button.parentNode;
      var badge = document.createElement('span');
      badge.className = 'badge revoked';
      badge.textContent = 'Revoked ' + when(data.apiKey.revokedAt);
      state.replaceChild(badge, button);
    }).catch(function (err) { button.disabled = false; showError(err.message); });
  });
})();
`;

/** GET /dashboard/assets/dashboard.js: public (no personal data), cacheable for a while. */
const assetRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/assets/dashboard.js',
    { schema: { hide: true, tags: ['pages'], response: { 200: z.string() } } },
    async (_request, reply) =>
      reply
        .type('text/javascript; charset=utf-8')
        .header('cache-control', 'public, max-age=300')
        .header('x-content-type-options', 'nosniff')
        .send(DASHBOARD_SCRIPT),
  );
};

export default assetRoutes;
