// The operator's console: sign in, API keys (create, list, revoke), usage per key and day, and a quick try of a key.
// Everything the page shows from the server goes in through textContent, never as HTML. The helpers it shares with
// the web chat (API calls, errors, the notice line) are common.js's.
'use strict';
(() => {
  const { $, api, errorText, notice, useSession } = window.consolePage;

  function cell(row, text, className) {
    const td = row.insertCell();
    td.textContent = text;
    if (className) td.className = className;
    return td;
  }

  const number = (n) => Number(n).toLocaleString('en-US');
  const money = (n, currency) => `${currency} ${Number(n).toFixed(6)}`;

  function describeLimits(limits) {
    const parts = [];
    if (limits.ratePerSecond !== undefined) parts.push(`${limits.ratePerSecond} requests/s`);
    if (limits.tokensPerMinute !== undefined) parts.push(`${number(limits.tokensPerMinute)} tokens/min`);
    if (limits.monthlyTokens !== undefined) parts.push(`${number(limits.monthlyTokens)} tokens/month`);
    return parts.join(', ') || 'no limits';
  }

  // ---------- pages ----------

  function show(tab) {
    for (const page of document.querySelectorAll('.page')) page.hidden = page.id !== tab;
    for (const button of document.querySelectorAll('.tab'))
      button.classList.toggle('active', button.dataset.tab === tab);
    if (tab === 'keys') loadKeys().catch(fail);
    if (tab === 'usage') loadUsage().catch(fail);
  }

  function signedIn(session) {
    useSession(session.csrf_token);
    $('#sign-in').hidden = true;
    $('#tabs').hidden = false;
    show('keys');
  }

  function signedOut(reason) {
    useSession('');
    $('#tabs').hidden = true;
    for (const page of document.querySelectorAll('.page')) page.hidden = true;
    $('#sign-in').hidden = false;
    notice(reason, false);
  }

  function fail(error) {
    if (error.status === 401) signedOut(error.message);
    else notice(error.message, true);
  }

  // ---------- keys ----------

  async function loadKeys() {
    const { keys } = await api('keys');
    const body = $('#key-table tbody');
    body.replaceChildren();
    for (const key of keys) {
      const row = body.insertRow();
      row.dataset.keyId = key.id;
      if (key.revoked_at) row.className = 'revoked';
      cell(row, key.id);
      cell(row, key.name);
      cell(row, key.created_at.slice(0, 16).replace('T', ' '));
      cell(row, key.revoked_at ? `revoked ${key.revoked_at.slice(0, 10)}` : 'active', 'status');
      cell(row, describeLimits(key.limits));
      const actions = row.insertCell();
      if (!key.revoked_at) {
        const revoke = document.createElement('button');
        revoke.type = 'button';
        revoke.className = 'revoke';
        revoke.textContent = 'Revoke';
        revoke.addEventListener('click', () => revokeKey(key).catch(fail));
        actions.append(revoke);
      }
    }
  }

  async function revokeKey(key) {
    if (!confirm(`Revoke key ${key.id} "${key.name}"? Calls with it are refused from now on.`)) return;
    await api('keys/' + key.id, { method: 'DELETE' });
    notice(`Key ${key.id} "${key.name}" is revoked.`);
    await loadKeys();
  }

  function limitValue(selector) {
    const text = $(selector).value.trim();
    return text === '' ? undefined : Number(text);
  }

  async function createKey(event) {
    event.preventDefault();
    const limits = {
      ratePerSecond: limitValue('#key-rate'),
      tokensPerMinute: limitValue('#key-tpm'),
      monthlyTokens: limitValue('#key-month'),
    };
    const created = await api('keys', { method: 'POST', body: { name: $('#key-name').value.trim(), limits } });
    $('#new-key').hidden = false;
    $('#new-key-value').textContent = created.key;
    $('#create-form').reset();
    notice(`Key ${created.id} "${created.name}" is created.`);
    await loadKeys();
  }

  // ---------- usage ----------

  async function loadUsage() {
    const query = new URLSearchParams();
    if ($('#usage-from').value) query.set('from', $('#usage-from').value);
    if ($('#usage-to').value) query.set('to', $('#usage-to').value);
    const usage = await api('usage?' + query);
    $('#usage-from').value = usage.from;
    $('#usage-to').value = usage.to;
    drawChart(usage.rows);
    const body = $('#usage-table tbody');
    body.replaceChildren();
    for (const line of usage.rows) {
      const row = body.insertRow();
      row.dataset.keyId = line.key_id;
      cell(row, line.date);
      cell(row, `${line.key_name} (${line.key_id})`);
      cell(row, number(line.requests), 'number requests');
      cell(row, number(line.input_tokens), 'number tokens');
      cell(row, money(line.cost, usage.price.currency), 'number');
    }
    const foot = $('#usage-table tfoot');
    foot.replaceChildren();
    const total = foot.insertRow();
    cell(total, 'Total');
    cell(total, '');
    cell(total, number(usage.total.requests), 'number total-requests');
    cell(total, number(usage.total.input_tokens), 'number total-tokens');
    cell(total, money(usage.total.cost, usage.price.currency), 'number');
  }

  /** One bar per day: the input tokens of every key together. */
  function drawChart(rows) {
    const svg = $('#usage-chart');
    svg.replaceChildren();
    const days = new Map();
    for (const row of rows) days.set(row.date, (days.get(row.date) || 0) + row.input_tokens);
    const entries = [...days.entries()].sort(([a], [b]) => (a < b ? -1 : 1));
    const max = Math.max(1, ...entries.map(([, tokens]) => tokens));
    const width = Math.min(48, 720 / Math.max(entries.length, 1));
    const ns = 'http://www.w3.org/2000/svg';
    entries.forEach(([date, tokens], i) => {
      const height = Math.max(1, (tokens / max) * 170);
      const bar = document.createElementNS(ns, 'rect');
      bar.setAttribute('x', String(i * width + 2));
      bar.setAttribute('y', String(180 - height));
      bar.setAttribute('width', String(Math.max(width - 4, 1)));
      bar.setAttribute('height', String(height));
      const title = document.createElementNS(ns, 'title');
      title.textContent = `${date}: ${number(tokens)} input tokens`;
      bar.append(title);
      const label = document.createElementNS(ns, 'text');
      label.setAttribute('x', String(i * width + 2));
      label.setAttribute('y', '196');
      label.textContent = date.slice(5);
      svg.append(bar, label);
    });
  }

  // ---------- try a key ----------

  async function tryKey(event) {
    event.preventDefault();
    const response = await fetch('/v1/systemone', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer ' + $('#try-key').value.trim() },
      body: JSON.stringify({
        model: 'jev-latest',
        state: $('#try-state').value,
        questions: { answer: { type: 'noul', instructions: $('#try-question').value } },
      }),
    });
    const body = await response.json().catch(() => null);
    const result = $('#try-result');
    result.hidden = false;
    result.textContent = response.ok
      ? `Yes with probability ${body.answers.answer.noul.toFixed(3)} (${body.usage.input_tokens} input tokens).`
      : `Refused (${response.status}): ${errorText(response.status, body)}`;
  }

  // ---------- start ----------

  $('#sign-in-form').addEventListener('submit', (event) => {
    event.preventDefault();
    api('session', { method: 'POST', body: { password: $('#password').value } })
      .then((session) => {
        $('#password').value = '';
        notice('');
        signedIn(session);
      })
      .catch((error) => notice(error.message, true));
  });
  $('#sign-out').addEventListener('click', () =>
    api('session', { method: 'DELETE' }).then(() => signedOut('Signed out.'), fail),
  );
  for (const button of document.querySelectorAll('.tab')) {
    button.addEventListener('click', () => show(button.dataset.tab));
  }
  $('#create-form').addEventListener('submit', (event) => createKey(event).catch(fail));
  $('#usage-form').addEventListener('submit', (event) => {
    event.preventDefault();
    loadUsage().catch(fail);
  });
  $('#try-form').addEventListener('submit', (event) => tryKey(event).catch(fail));
  $('#copy-key').addEventListener('click', () => navigator.clipboard.writeText($('#new-key-value').textContent));

  api('session').then(signedIn, (error) => {
    if (error.status === 401) signedOut('');
    else notice(error.message, true);
  });
})();
