// What a click would send: the form a submit button submits (its method, where to, which fields hold a value, and
// whether it is a sign-in the assistant typed a secret into). The approval gate asks before a form is sent
// (safety/tool-approval.ts); the click then checks that the element still sends the form that was approved.
import type { Page } from 'playwright-core';

import { formSignature, type ClickedForm } from './protocol';
import { ServiceError } from './service-error';
import { refSelector, SECRET_ATTRIBUTE } from './snapshot';

/** At most this many field names are listed. */
const MAX_FIELDS = 20;

const FORM_SCRIPT = `({ selector, secretAttr, maxFields }) => {
  const el = document.querySelector(selector);
  if (!el) return { missing: true };
  const tag = el.tagName.toLowerCase();
  const type = (el.getAttribute('type') || '').toLowerCase();
  const submits = (tag === 'button' && (type === '' || type === 'submit')) ||
    (tag === 'input' && (type === 'submit' || type === 'image'));
  const form = submits ? el.form : null;
  if (!form) return { form: null };
  const action = el.hasAttribute('formaction') ? el.formAction : form.action;
  const method = (el.getAttribute('formmethod') || form.getAttribute('method') || 'get').toUpperCase();
  const label = (field) => {
    const text = field.labels && field.labels[0] ? field.labels[0].textContent : '';
    return (text || field.getAttribute('aria-label') || field.name || field.id || field.type).replace(/\\s+/g, ' ').trim();
  };
  const filled = Array.from(form.elements).filter((field) => {
    const kind = (field.type || '').toLowerCase();
    if (['hidden', 'submit', 'button', 'image', 'reset', 'fieldset'].includes(kind)) return false;
    if (kind === 'checkbox' || kind === 'radio') return field.checked;
    return typeof field.value === 'string' && field.value !== '';
  });
  const secret = filled.some((field) => field.hasAttribute(secretAttr));
  let sameOrigin = false;
  try { sameOrigin = new URL(action).origin === location.origin; } catch (e) { sameOrigin = false; }
  return {
    form: {
      method: ['GET', 'POST', 'DIALOG'].includes(method) ? method : 'GET',
      action,
      fields: filled.slice(0, maxFields).map(label),
      signIn: secret && sameOrigin,
    },
  };
}`;

/** The form a click on the element would send, or null. */
export async function clickedForm(page: Page, ref: number): Promise<ClickedForm | null> {
  const args = { selector: refSelector(ref), secretAttr: SECRET_ATTRIBUTE, maxFields: MAX_FIELDS };
  const found = (await page.evaluate(`(${FORM_SCRIPT})(${JSON.stringify(args)})`)) as {
    missing?: boolean;
    form?: ClickedForm | null;
  };
  if (found.missing) {
    throw new ServiceError(
      'unknown_ref',
      `there is no element ${ref} on the page now (it changed since the snapshot): take a new snapshot and use its refs`,
      'ref',
    );
  }
  return found.form ?? null;
}

/** Refuses the click when the element sends another form than the approved one ("" for none). */
export async function requireClickedForm(page: Page, ref: number, expected: string): Promise<void> {
  const now = formSignature(await clickedForm(page, ref));
  if (now === expected) return;
  throw new ServiceError(
    'refused',
    `element ${ref} now ${now ? `sends a form (${now})` : 'sends no form'}, not ${expected ? `the approved one (${expected})` : 'none as looked at'}; nothing was clicked: take a new snapshot`,
    'expectForm',
  );
}
