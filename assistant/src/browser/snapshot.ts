// What a session's step answers with: the page as the agent sees it. A script in the page reads its visible text and
// its visible interactive elements (links, buttons, fields, selects, ARIA widgets, contenteditable), numbers them 1..N
// and marks each with `data-assistant-ref` so a later step finds it again; it names them as a screen reader would
// (aria-labelledby, aria-label, the field's label, the text, placeholder, title, name). It never reads out a password
// field's value nor one marked `data-assistant-secret` (filled with a secret), and spots the field asking for a
// one-time code. The script is a string: functions passed to Playwright would carry the test runner's helpers along.
import type { Page } from 'playwright-core';

import type { SessionElement, SessionPage } from './protocol';

export const REF_ATTRIBUTE = 'data-assistant-ref';
export const SECRET_ATTRIBUTE = 'data-assistant-secret';
export const HIDDEN_VALUE = '[hidden]';

export const MAX_TEXT_CHARS = 6_000;
export const MAX_ELEMENTS = 150;
const MAX_OPTIONS = 50;
const MAX_NAME_CHARS = 120;
const MAX_VALUE_CHARS = 500;
const CONTEXT_LOST = /Execution context was destroyed|navigat/i;

/** A snapshot without the task's counters (the session adds them). */
export type PageSnapshot = Omit<SessionPage, 'task' | 'refused'>;

/** The CSS selector of the element a snapshot numbered `ref`. */
export const refSelector = (ref: number): string => `[${REF_ATTRIBUTE}="${ref}"]`;

/**
 * Runs in the page. `hint` words (labels, name, id, placeholder, aria-label, split at camelCase and punctuation) say
 * whether a field asks for a one-time code; a postal, promo or country code is not one.
 */
const SNAPSHOT_SCRIPT = String.raw`({ maxText, maxElements, maxOptions, maxName, maxValue, refAttr, secretAttr, hidden }) => {
  const norm = (s) => String(s || '').replace(/\s+/g, ' ').trim();
  const cut = (s, n) => (s.length > n ? s.slice(0, n - 1) + '…' : s);
  for (const old of document.querySelectorAll('[' + refAttr + ']')) old.removeAttribute(refAttr);

  const bodyText = document.body ? document.body.innerText || '' : '';
  const text = bodyText.length > maxText ? bodyText.slice(0, maxText) : bodyText;

  const SELECTOR = [
    'a[href]', 'button', 'input:not([type=hidden])', 'select', 'textarea', 'summary',
    '[contenteditable=""]', '[contenteditable=true]', '[contenteditable=plaintext-only]',
    ...['button', 'link', 'checkbox', 'radio', 'switch', 'tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio',
      'option', 'combobox', 'textbox', 'searchbox', 'slider', 'spinbutton', 'treeitem'].map((r) => '[role=' + r + ']'),
  ].join(',');
  const BUTTON_TYPES = ['button', 'submit', 'reset', 'image'];
  const TEXT_TYPES = ['', 'text', 'tel', 'number', 'password', 'search'];

  const visible = (el) => {
    if (el.checkVisibility && !el.checkVisibility({ visibilityProperty: true })) return false;
    const box = el.getBoundingClientRect();
    return box.width > 0 && box.height > 0;
  };
  const typeOf = (el) => (el.getAttribute('type') || 'text').toLowerCase();
  const roleOf = (el) => {
    const tag = el.tagName.toLowerCase();
    const explicit = norm(el.getAttribute('role')).split(' ')[0].toLowerCase();
    if (tag === 'input') {
      const type = typeOf(el);
      if (type === 'password') return 'password';
      if (BUTTON_TYPES.includes(type)) return 'button';
      if (type === 'checkbox' || type === 'radio') return type;
      if (type === 'range') return 'slider';
      if (type === 'file' || type === 'color') return type;
      return 'textbox';
    }
    if (tag === 'select') return el.multiple ? 'listbox' : 'combobox';
    if (tag === 'textarea') return 'textarea';
    if (explicit) return explicit;
    if (tag === 'a') return 'link';
    if (tag === 'button' || tag === 'summary') return 'button';
    if (el.isContentEditable) return 'textbox';
    return 'generic';
  };
  const isField = (el) => ['input', 'select', 'textarea'].includes(el.tagName.toLowerCase()) || el.isContentEditable;
  // A label's own text, without the fields inside it (a select's options would come along).
  const labelText = (label) => {
    const copy = label.cloneNode(true);
    for (const inner of copy.querySelectorAll('input, select, textarea, button')) inner.remove();
    return norm(copy.textContent);
  };
  const byIds = (ids) =>
    norm(ids.split(/\s+/).map((id) => document.getElementById(id)).filter(Boolean).map((t) => t.innerText || t.textContent).join(' '));
  const nameOf = (el) => {
    const labelledBy = el.getAttribute('aria-labelledby');
    if (labelledBy && byIds(labelledBy)) return byIds(labelledBy);
    if (norm(el.getAttribute('aria-label'))) return norm(el.getAttribute('aria-label'));
    if (el.labels && el.labels.length > 0) {
      const labels = norm(Array.from(el.labels).map(labelText).join(' '));
      if (labels) return labels;
    }
    if (el.tagName === 'INPUT' && BUTTON_TYPES.includes(typeOf(el))) {
      const value = norm(el.value || el.getAttribute('alt'));
      if (value) return value;
    }
    if (!isField(el)) {
      const own = norm(el.innerText || el.textContent);
      if (own) return own;
      const image = el.querySelector('img[alt]');
      if (image && norm(image.alt)) return norm(image.alt);
    }
    for (const attribute of ['placeholder', 'title', 'name', 'alt']) {
      const value = norm(el.getAttribute(attribute));
      if (value) return value;
    }
    return '';
  };

  const CODE = /\b(code|otp|one ?time|onetime|verification|2fa|mfa|two ?factor|authenticator|passcode|totp)\b/;
  const NOT_CODE = /\b(postal|post|postcode|zip|zipcode|promo|promotion|promotional|coupon|discount|voucher|gift|referral|invite|invitation|country|area|dialling|dialing)\b/;
  const hintOf = (el) =>
    [
      el.labels ? Array.from(el.labels).map(labelText).join(' ') : '',
      el.getAttribute('name'), el.id, el.getAttribute('placeholder'), el.getAttribute('aria-label'),
      el.getAttribute('aria-labelledby') ? byIds(el.getAttribute('aria-labelledby')) : '',
    ]
      .join(' ')
      .replace(/([a-z])([A-Z])/g, '$1 $2')
      .replace(/[^A-Za-z0-9]+/g, ' ')
      .toLowerCase();
  const asksForCode = (el) => {
    if (el.tagName !== 'INPUT' || !TEXT_TYPES.includes(typeOf(el)) || el.value !== '' || el.disabled) return false;
    if ((el.getAttribute('autocomplete') || '').toLowerCase().split(/\s+/).includes('one-time-code')) return true;
    const hint = hintOf(el);
    return CODE.test(hint) && !NOT_CODE.test(hint);
  };

  const elements = [];
  let codeField = null;
  for (const el of document.querySelectorAll(SELECTOR)) {
    if (elements.length >= maxElements) break;
    if (!visible(el)) continue;
    const ref = elements.length + 1;
    el.setAttribute(refAttr, String(ref));
    const role = roleOf(el);
    const item = { ref, role, name: cut(nameOf(el), maxName) };
    const secret = role === 'password' || el.hasAttribute(secretAttr);
    if (el.tagName === 'SELECT') {
      const options = Array.from(el.options);
      item.value = cut(norm(options.filter((o) => o.selected).map((o) => o.label).join(', ')), maxValue);
      item.options = options.slice(0, maxOptions).map((o) => cut(norm(o.label), maxName));
    } else if (role === 'checkbox' || role === 'radio' || role === 'switch' || role === 'menuitemcheckbox' || role === 'menuitemradio') {
      item.checked = el.tagName === 'INPUT' ? el.checked : el.getAttribute('aria-checked') === 'true';
    } else if (el.tagName === 'INPUT' && !BUTTON_TYPES.includes(typeOf(el)) && typeOf(el) !== 'file') {
      item.value = secret ? (el.value ? hidden : '') : cut(el.value, maxValue);
    } else if (el.tagName === 'TEXTAREA') {
      item.value = secret ? (el.value ? hidden : '') : cut(el.value, maxValue);
    } else if (el.isContentEditable) {
      const content = el.innerText || '';
      item.value = secret ? (content ? hidden : '') : cut(content, maxValue);
    }
    if (el.matches(':disabled') || el.getAttribute('aria-disabled') === 'true') item.disabled = true;
    if (codeField === null && asksForCode(el)) codeField = { ref, name: item.name };
    elements.push(item);
  }
  return { title: document.title, text, truncated: bodyText.length > maxText, elements, codeField };
}`;

const SCRIPT_ARGS = JSON.stringify({
  maxText: MAX_TEXT_CHARS,
  maxElements: MAX_ELEMENTS,
  maxOptions: MAX_OPTIONS,
  maxName: MAX_NAME_CHARS,
  maxValue: MAX_VALUE_CHARS,
  refAttr: REF_ATTRIBUTE,
  secretAttr: SECRET_ATTRIBUTE,
  hidden: HIDDEN_VALUE,
});

/**
 * Reads the page and numbers its elements afresh (the refs of an earlier snapshot no longer hold). A document that is
 * still being replaced (a navigation the page started itself) is waited for, once or twice.
 */
export async function takeSnapshot(page: Page, timeoutMs: number): Promise<PageSnapshot> {
  for (let attempt = 0; ; attempt++) {
    try {
      const read = (await page.evaluate(`(${SNAPSHOT_SCRIPT})(${SCRIPT_ARGS})`)) as Omit<PageSnapshot, 'url'>;
      return { url: page.url(), ...read };
    } catch (error) {
      if (attempt >= 2 || !CONTEXT_LOST.test((error as Error).message)) throw error;
      await page.waitForLoadState('domcontentloaded', { timeout: Math.max(1, timeoutMs) }).catch(() => undefined);
    }
  }
}

/**
 * Every secret typed in the task (a password, a code), wherever the page shows it again — in its text, its URL (a
 * form sent by GET), a field — becomes "[hidden]". Short ones (under 4 characters) rely on the field markers alone.
 */
export function redactSecrets(snapshot: PageSnapshot, secrets: Iterable<string>): PageSnapshot {
  const values = [...secrets].filter((secret) => secret.length >= 4).sort((a, b) => b.length - a.length);
  if (values.length === 0) return snapshot;
  const clean = (text: string): string => values.reduce((out, secret) => out.split(secret).join(HIDDEN_VALUE), text);
  // In a URL also as percent-encoded and as a form sends it (spaces as +).
  const encoded = values.flatMap((secret) => [
    encodeURIComponent(secret),
    new URLSearchParams({ s: secret }).toString().slice(2),
  ]);
  const cleanUrl = (url: string): string =>
    encoded.reduce((out, secret) => out.split(secret).join(HIDDEN_VALUE), clean(url));
  const element = (item: SessionElement): SessionElement => ({
    ...item,
    name: clean(item.name),
    ...(item.value !== undefined ? { value: clean(item.value) } : {}),
    ...(item.options ? { options: item.options.map(clean) } : {}),
  });
  return {
    ...snapshot,
    url: cleanUrl(snapshot.url),
    title: clean(snapshot.title),
    text: clean(snapshot.text),
    elements: snapshot.elements.map(element),
    codeField: snapshot.codeField && { ...snapshot.codeField, name: clean(snapshot.codeField.name) },
  };
}
