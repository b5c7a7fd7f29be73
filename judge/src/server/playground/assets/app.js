// The System One playground: build a request (state + noul/choice/score questions), judge it, show the answers as
// probability bars, and copy it as curl or TypeScript SDK code. No framework, no build step.
// Without an API key the page judges through POST /playground/judge (only when the server's open mode is on);
// with a key it calls POST /v1/systemone like any client. The key stays in this page's memory only.
'use strict';

(function () {
  const $ = (id) => document.getElementById(id);
  const el = (tag, attrs, ...children) => {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === undefined || value === null) continue;
      if (key === 'class') node.className = value;
      else if (key === 'text') node.textContent = value;
      else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value);
    }
    for (const child of children) if (child !== undefined && child !== null) node.append(child);
    return node;
  };

  let access = { open: false, reason: 'unknown', limits: {} };
  let lastSnippet = 'curl';
  const counters = { noul: 0, choice: 0, score: 0 };

  // ----- questions -----

  function optionRow(label, description) {
    const row = el(
      'div',
      { class: 'row option' },
      el('input', { class: 'opt-label', placeholder: 'label', 'aria-label': 'Option label', value: label || '' }),
      el('input', {
        class: 'opt-desc',
        placeholder: 'description (optional)',
        'aria-label': 'Option description',
        value: description || '',
      }),
      el('button', {
        type: 'button',
        class: 'icon',
        title: 'Remove option',
        'aria-label': 'Remove option',
        text: '×',
      }),
    );
    row.querySelector('button').addEventListener('click', () => {
      row.remove();
      changed();
    });
    return row;
  }

  function levelRow(text) {
    const row = el(
      'div',
      { class: 'row level' },
      el('span', { class: 'index' }),
      el('input', { class: 'level-text', placeholder: 'level description', 'aria-label': 'Level', value: text || '' }),
      el('button', { type: 'button', class: 'icon', title: 'Remove level', 'aria-label': 'Remove level', text: '×' }),
    );
    row.querySelector('button').addEventListener('click', () => {
      const rows = row.parentElement;
      row.remove();
      numberLevels(rows);
      changed();
    });
    return row;
  }

  function numberLevels(rows) {
    if (!rows) return;
    rows.querySelectorAll('.level .index').forEach((span, i) => (span.textContent = String(i)));
  }

  /** Adds a question card; `init` = {name, instructions, options: [[label, description]], levels: [...], yes, no}. */
  function addQuestion(type, init) {
    init = init || {};
    counters[type] += 1;
    const name = init.name || (counters[type] === 1 ? type : type + counters[type]);
    const card = el('div', { class: 'question', 'data-type': type });
    const head = el(
      'div',
      { class: 'question-head' },
      el('span', { class: 'badge', text: type }),
      el('input', { class: 'q-name', 'aria-label': 'Question name', value: name, spellcheck: 'false' }),
      el('span', { class: 'grow' }),
      el('button', {
        type: 'button',
        class: 'icon q-remove',
        title: 'Remove question',
        'aria-label': 'Remove question',
        text: '×',
      }),
    );
    head.querySelector('.q-remove').addEventListener('click', () => {
      card.remove();
      changed();
    });
    const placeholder = {
      noul: 'Instructions, e.g. Does the customer ask for a refund?',
      choice: 'Instructions, e.g. Which team should handle this?',
      score: 'Instructions, e.g. How upset is the customer?',
    }[type];
    card.append(
      head,
      el('textarea', { class: 'q-instructions', rows: '2', placeholder, 'aria-label': 'Instructions' }),
    );
    card.querySelector('.q-instructions').value = init.instructions || '';

    if (type === 'noul') {
      card.append(
        el(
          'div',
          { class: 'row' },
          el('input', {
            class: 'q-true',
            placeholder: 'yes means… (optional)',
            'aria-label': 'What yes means',
            value: init.yes || '',
          }),
          el('input', {
            class: 'q-false',
            placeholder: 'no means… (optional)',
            'aria-label': 'What no means',
            value: init.no || '',
          }),
        ),
      );
    } else if (type === 'choice') {
      const rows = el('div', { class: 'rows options' });
      const options = init.options || [
        ['', ''],
        ['', ''],
      ];
      for (const [label, description] of options) rows.append(optionRow(label, description));
      const add = el('button', { type: 'button', class: 'link add-option', text: '+ option' });
      add.addEventListener('click', () => {
        rows.append(optionRow());
        rows.lastChild.querySelector('input').focus();
        changed();
      });
      card.append(rows, el('div', {}, add));
    } else {
      const rows = el('div', { class: 'rows levels' });
      const levels = init.levels || ['', '', ''];
      for (const level of levels) rows.append(levelRow(level));
      numberLevels(rows);
      const add = el('button', { type: 'button', class: 'link add-level', text: '+ level' });
      add.addEventListener('click', () => {
        rows.append(levelRow());
        numberLevels(rows);
        rows.lastChild.querySelector('input').focus();
        changed();
      });
      card.append(rows, el('div', {}, add, el('span', { class: 'hint add-level-hint', text: 'lowest (0) first' })));
    }
    $('questions').append(card);
    changed();
    return card;
  }

  // ----- the request -----

  /** The request body from the editor, or throws an Error whose message says what to fix. */
  function buildRequest() {
    const kind = document.querySelector('input[name="state-kind"]:checked').value;
    const text = $('state').value;
    let state = text;
    if (kind === 'json') {
      try {
        state = JSON.parse(text);
      } catch (error) {
        throw new Error('The state is not valid JSON: ' + error.message);
      }
      if (state === null || typeof state !== 'object') {
        throw new Error('A JSON state must be an object or an array (choose Text for plain text).');
      }
    }
    const questions = {};
    const cards = document.querySelectorAll('#questions .question');
    if (cards.length === 0) throw new Error('Add at least one question.');
    for (const card of cards) {
      const type = card.dataset.type;
      const name = card.querySelector('.q-name').value;
      if (!name.trim()) throw new Error('Every question needs a name.');
      if (Object.prototype.hasOwnProperty.call(questions, name))
        throw new Error('Two questions are named "' + name + '".');
      const question = { type };
      const instructions = card.querySelector('.q-instructions').value;
      if (instructions.trim()) question.instructions = instructions;
      if (type === 'noul') {
        const yes = card.querySelector('.q-true').value;
        const no = card.querySelector('.q-false').value;
        if (yes.trim() || no.trim()) {
          question.criteria = {};
          if (yes.trim()) question.criteria.true = yes;
          if (no.trim()) question.criteria.false = no;
        }
      } else if (type === 'choice') {
        const criteria = {};
        for (const row of card.querySelectorAll('.option')) {
          const label = row.querySelector('.opt-label').value;
          const description = row.querySelector('.opt-desc').value;
          if (!label.trim()) {
            if (description.trim())
              throw new Error('Question "' + name + '": an option has a description but no label.');
            continue;
          }
          if (Object.prototype.hasOwnProperty.call(criteria, label)) {
            throw new Error('Question "' + name + '": the option "' + label + '" is listed twice.');
          }
          criteria[label] = description.trim() ? description : null;
        }
        if (Object.keys(criteria).length === 0) throw new Error('Question "' + name + '" needs at least one option.');
        question.criteria = criteria;
      } else {
        const levels = [...card.querySelectorAll('.level-text')].map((input) => input.value).filter((v) => v.trim());
        if (levels.length < 2) throw new Error('Question "' + name + '" needs at least two levels.');
        question.criteria = levels;
      }
      questions[name] = question;
    }
    return { model: $('model').value.trim() || 'jev-latest', state, questions };
  }

  // ----- snippets -----

  const shellQuote = (text) => "'" + text.replace(/'/g, "'\\''") + "'";
  const ts = (value) => JSON.stringify(value);

  function curlSnippet(request) {
    return [
      'curl -s ' + location.origin + '/v1/systemone \\',
      '  -H "authorization: Bearer $JUDGE_API_KEY" \\',
      "  -H 'content-type: application/json' \\",
      '  -d ' + shellQuote(JSON.stringify(request, null, 2)),
    ].join('\n');
  }

  function sdkQuestion(question) {
    const instructions = question.instructions === undefined ? 'null' : ts(question.instructions);
    if (question.type === 'noul') {
      return question.criteria
        ? 'noul(' + instructions + ', ' + ts(question.criteria) + ')'
        : 'noul(' + instructions + ')';
    }
    const criteria = JSON.stringify(question.criteria, null, 2).replace(/\n/g, '\n    ');
    return question.type + '(' + instructions + ', ' + criteria + ')';
  }

  function sdkSnippet(request) {
    const kinds = [...new Set(Object.values(request.questions).map((q) => q.type))].sort();
    const state = JSON.stringify(request.state, null, 2).replace(/\n/g, '\n  ');
    const questions = Object.entries(request.questions)
      .map(([name, question]) => '    ' + ts(name) + ': ' + sdkQuestion(question) + ',')
      .join('\n');
    return [
      'import { TypeSafeClient, ' + kinds.join(', ') + " } from '@typesafe-ai/sdk';",
      '',
      'const client = new TypeSafeClient({ apiKey: process.env.JUDGE_API_KEY, baseURL: ' + ts(location.origin) + ' });',
      'const response = await client.systemOne({',
      '  model: ' + ts(request.model) + ',',
      '  state: ' + state + ',',
      '  questions: {',
      questions,
      '  },',
      '});',
      'console.log(response.answers);',
    ].join('\n');
  }

  function renderSnippet() {
    let request;
    try {
      request = buildRequest();
    } catch (error) {
      $('snippet').textContent = '// ' + error.message;
      return undefined;
    }
    const text = lastSnippet === 'sdk' ? sdkSnippet(request) : curlSnippet(request);
    $('snippet').textContent = text;
    return text;
  }

  async function copySnippet(kind) {
    lastSnippet = kind;
    const text = renderSnippet();
    if (text === undefined) return;
    const label = kind === 'sdk' ? 'TypeScript SDK code' : 'curl command';
    try {
      await navigator.clipboard.writeText(text);
      $('copy-status').textContent = 'Copied the ' + label + '.';
    } catch {
      const range = document.createRange();
      range.selectNodeContents($('snippet'));
      const selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
      $('copy-status').textContent =
        'The clipboard is not available here: the ' + label + ' is selected, copy it with Ctrl+C.';
    }
  }

  // ----- judging -----

  function errorText(status, body) {
    const detail = body && body.detail;
    if (Array.isArray(detail)) {
      return detail.map((d) => (Array.isArray(d.loc) ? d.loc.join('.') + ': ' : '') + d.msg).join('\n');
    }
    if (detail && typeof detail === 'object') return detail.message || detail.error_type || JSON.stringify(detail);
    if (typeof detail === 'string') return detail;
    return 'HTTP ' + status;
  }

  const percent = (p) => (100 * p).toFixed(1) + ' %';

  function bar(option, label, p, top, description) {
    const fill = el('span', { class: 'bar-fill' });
    fill.style.width = (100 * p).toFixed(2) + '%'; // CSSOM, which the page's CSP allows (style attributes it does not)
    const title = description ? label + ' — ' + description : label;
    return el(
      'div',
      { class: 'bar-row' + (top ? ' top' : ''), 'data-option': option, 'data-probability': String(p) },
      el(
        'span',
        { class: 'bar-label', title },
        label,
        description ? el('span', { class: 'description', text: ' — ' + description }) : undefined,
      ),
      el('span', { class: 'bar-track' }, fill),
      el('span', { class: 'bar-value', text: percent(p) }),
    );
  }

  function levelText(level) {
    return typeof level === 'string' ? level : JSON.stringify(level);
  }

  function renderAnswer(name, answer, question) {
    const box = el('div', { class: 'answer', 'data-question': name, 'data-type': answer.type });
    let verdict;
    let confidence;
    const bars = [];
    if (answer.type === 'noul') {
      const yes = answer.noul;
      verdict = (yes >= 0.5 ? 'yes' : 'no') + ' · P(yes) = ' + yes.toFixed(3);
      confidence = Math.abs(2 * yes - 1);
      bars.push(bar('true', 'yes', yes, yes >= 0.5), bar('false', 'no', 1 - yes, yes < 0.5));
    } else {
      const entries = Object.entries(answer.probabilities);
      const best = Math.max(...entries.map((e) => e[1]));
      let topShown = false;
      for (const [option, p] of entries) {
        let label = option;
        let description;
        if (answer.type === 'score') {
          const level = answer.legend ? answer.legend[option] : undefined;
          label = option + ' · ' + (level === undefined ? '' : levelText(level));
        } else if (question && question.criteria && question.criteria[option]) {
          description = levelText(question.criteria[option]);
        }
        const top = !topShown && p === best;
        if (top) topShown = true;
        bars.push(bar(option, label, p, top, description));
      }
      confidence = answer.confidence;
      verdict =
        answer.type === 'choice'
          ? '→ ' + answer.choice
          : 'score ' + answer.score.toFixed(2) + ' of ' + (entries.length - 1);
    }
    const confidenceNode = el('span', {
      class: 'confidence',
      'data-confidence': String(confidence),
      text: 'confidence ' + confidence.toFixed(2),
      title:
        answer.type === 'noul'
          ? 'A noul has no confidence in the API; shown here as |2·P(yes) − 1|, the 2-option choice confidence.'
          : answer.type === 'choice'
            ? '(n·p_max − 1)/(n − 1)'
            : '1 − E|i − m| / E_uniform|i − (n−1)/2|',
    });
    box.append(
      el(
        'div',
        { class: 'answer-head' },
        el('span', { class: 'name', text: name }),
        el('span', { class: 'verdict', text: verdict }),
        confidenceNode,
      ),
      ...bars,
    );
    return box;
  }

  function showError(message) {
    $('answers').replaceChildren(el('p', { class: 'error-box', id: 'judge-error', text: message }));
  }

  async function judge() {
    let request;
    try {
      request = buildRequest();
    } catch (error) {
      $('status').textContent = error.message;
      $('status').className = 'error';
      return;
    }
    const key = $('api-key').value.trim();
    if (!key && !access.open) {
      $('status').textContent = 'Enter an API key: ' + access.reason + '.';
      $('status').className = 'error';
      $('api-key').focus();
      return;
    }
    const url = key ? '/v1/systemone' : '/playground/judge';
    const headers = { 'content-type': 'application/json' };
    if (key) headers.authorization = 'Bearer ' + key;
    $('judge').disabled = true;
    $('status').className = '';
    $('status').textContent = 'Judging…';
    const started = performance.now();
    let response;
    let body;
    try {
      response = await fetch(url, { method: 'POST', headers, body: JSON.stringify(request) });
      body = await response.json().catch(() => undefined);
    } catch (error) {
      $('judge').disabled = false;
      $('status').textContent = '';
      showError('The server did not answer: ' + error.message);
      return;
    }
    const latency = performance.now() - started;
    $('judge').disabled = false;
    $('status').textContent = '';
    const requestId = response.headers.get('x-request-id') || '';
    if (!response.ok || !body || !body.answers) {
      showError(
        response.status + ' · ' + errorText(response.status, body) + (requestId ? '\nrequest id ' + requestId : ''),
      );
      $('meta').textContent = 'Failed after ' + Math.round(latency) + ' ms.';
      return;
    }
    const timing = /total;dur=([\d.]+)/.exec(response.headers.get('server-timing') || '');
    const tokensLeft = response.headers.get('x-playground-tokens-left');
    const meta = [
      el('span', { id: 'latency', 'data-ms': String(latency), text: 'latency ' + Math.round(latency) + ' ms' }),
      timing ? ' (server ' + Number(timing[1]).toFixed(1) + ' ms)' : '',
      ' · ',
      el('span', {
        id: 'input-tokens',
        'data-tokens': String(body.usage.input_tokens),
        text: body.usage.input_tokens + ' input tokens',
      }),
      ' · model ',
      el('span', { id: 'answered-model', text: body.model }),
      ' · ' +
        (key
          ? 'with your key'
          : 'open playground' + (tokensLeft ? ' (' + count(Number(tokensLeft)) + ' tokens left this hour)' : '')),
    ];
    $('meta').replaceChildren(...meta);
    $('answers').replaceChildren(
      ...Object.entries(body.answers).map(([name, answer]) => renderAnswer(name, answer, request.questions[name])),
    );
  }

  // ----- access, models, example -----

  const count = (n) => (typeof n === 'number' ? n.toLocaleString('en') : String(n));

  function showAccess() {
    const note = $('access');
    if (access.open) {
      const limits = access.limits || {};
      note.className = 'access';
      note.textContent =
        'Open playground: judging needs no key here (' +
        access.reason +
        '; shared limits ' +
        count(limits.requestsPerMinute) +
        ' requests a minute, ' +
        count(limits.tokensPerHour) +
        ' input tokens an hour). Enter an API key to call /v1/systemone instead.';
    } else {
      note.className = 'access closed';
      note.textContent = 'Enter an API key to judge. Judging without a key is off: ' + access.reason + '.';
    }
  }

  function setModels(models) {
    $('models').replaceChildren(...models.map((m) => el('option', { value: m.name, label: m.description })));
  }

  async function loadAccess() {
    try {
      const response = await fetch('/playground/config');
      access = await response.json();
      if (access.models) setModels(access.models);
    } catch (error) {
      access = { open: false, reason: 'the server could not be asked (' + error.message + ')' };
    }
    showAccess();
    document.body.dataset.ready = 'true';
  }

  async function loadModelsWithKey() {
    const key = $('api-key').value.trim();
    if (!key) return;
    try {
      const response = await fetch('/v1/models', { headers: { authorization: 'Bearer ' + key } });
      if (response.ok) setModels((await response.json()).models || []);
    } catch {
      /* the model field still takes any name */
    }
  }

  function loadExample() {
    document.querySelector('input[name="state-kind"][value="text"]').checked = true;
    $('state').value =
      'Subject: Charged twice for March\n\n' +
      'Hi, I was billed twice for my March invoice (Pro plan, 12 seats). ' +
      'Please refund the duplicate charge by Friday. This is the second time this has happened.';
    $('questions').replaceChildren();
    counters.noul = counters.choice = counters.score = 0;
    addQuestion('noul', { name: 'refund_asked', instructions: 'Does the customer ask for a refund?' });
    addQuestion('choice', {
      name: 'team',
      instructions: 'Which team should handle this?',
      options: [
        ['billing', 'Charges, invoices and refunds'],
        ['engineering', 'Broken product functionality'],
        ['success', 'How-to questions and setup'],
      ],
    });
    addQuestion('score', {
      name: 'frustration',
      instructions: 'How frustrated is the customer?',
      levels: ['calm', 'annoyed', 'angry', 'furious'],
    });
  }

  /** In JSON mode, says at once whether the state parses. */
  function checkState() {
    const json = document.querySelector('input[name="state-kind"]:checked').value === 'json';
    let message = '';
    if (json && $('state').value.trim()) {
      try {
        JSON.parse($('state').value);
      } catch (error) {
        message = 'Not valid JSON yet: ' + error.message;
      }
    }
    $('state-error').textContent = message;
    $('state-error').hidden = !message;
  }

  function changed() {
    $('no-questions').hidden = document.querySelectorAll('#questions .question').length > 0;
    renderSnippet();
  }

  document.addEventListener('DOMContentLoaded', () => {
    for (const button of document.querySelectorAll('[data-add]')) {
      button.addEventListener('click', () => {
        const card = addQuestion(button.dataset.add);
        card.querySelector('.q-instructions').focus();
      });
    }
    $('judge').addEventListener('click', judge);
    $('load-example').addEventListener('click', loadExample);
    $('copy-curl').addEventListener('click', () => copySnippet('curl'));
    $('copy-sdk').addEventListener('click', () => copySnippet('sdk'));
    $('api-key').addEventListener('change', loadModelsWithKey);
    $('state').addEventListener('input', checkState);
    for (const radio of document.querySelectorAll('input[name="state-kind"]'))
      radio.addEventListener('change', checkState);
    document.addEventListener('input', renderSnippet);
    document.addEventListener('change', renderSnippet);
    document.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) judge();
    });
    changed();
    loadAccess();
  });
})();
