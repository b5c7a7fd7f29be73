// What both console pages (the console, index.html/app.js, and the web chat, chat.html/chat.js) share: the element
// lookup, the console API's calls with the session's CSRF token, an error's text from the server's envelope, and the
// notice line. Loaded before each page's own script, as window.consolePage.
'use strict';
(() => {
  let csrfToken = '';

  const $ = (selector) => document.querySelector(selector);

  /** The sentence of an error answer (the server's {detail}), else its HTTP status. */
  function errorText(status, body) {
    const detail = body && body.detail;
    if (Array.isArray(detail)) return detail.map((d) => (d.loc || []).slice(1).join('.') + ': ' + d.msg).join('; ');
    if (detail && typeof detail === 'object') return detail.message || detail.error_type;
    return typeof detail === 'string' ? detail : `HTTP ${status}`;
  }

  /**
   * A call of /console/api/<path>: `body` is sent as JSON, `raw` (a Blob) as its own type; the answer's JSON, or an
   * Error with the server's sentence and `status`.
   */
  async function api(path, options = {}) {
    const headers = { 'x-csrf-token': csrfToken };
    let body;
    if (options.raw !== undefined) {
      headers['content-type'] = options.raw.type;
      body = options.raw;
    } else if (options.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.body);
    }
    const response = await fetch('/console/api/' + path, { method: options.method || 'GET', headers, body });
    const answer = await response.json().catch(() => null);
    if (!response.ok) throw Object.assign(new Error(errorText(response.status, answer)), { status: response.status });
    return answer;
  }

  /** The notice line: `text` (none hides it), red when it is an error. */
  function notice(text, isError) {
    const element = $('#notice');
    element.hidden = !text;
    element.textContent = text || '';
    element.className = isError ? 'notice error' : 'notice';
  }

  /** The signed-in session's CSRF token, sent with every call ('' when signed out). */
  const useSession = (token) => {
    csrfToken = token || '';
  };

  window.consolePage = Object.freeze({ $, api, errorText, notice, useSession });
})();
