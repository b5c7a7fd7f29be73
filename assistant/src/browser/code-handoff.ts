// When a browser step lands on a page that asks for a one-time code, the run pauses and asks the user over their
// channel; the code they send is typed into the field by the step that takes it (it never passes through the model
// or the workflow's data). A site that keeps refusing codes is given up on after a limit.
import type { SessionPage } from './protocol';

/** Codes typed in one task before the assistant stops asking. */
export const MAX_CODES_PER_TASK = 3;

export type CodeRequest =
  | { ask: true; ref: number; attempt: number; question: string }
  | { ask: false; reason: 'no_code_field' }
  | { ask: false; reason: 'limit'; message: string };

function siteName(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'The site';
  }
}

/** What the decision needs of a page: where it is, its code field, and how many codes the task typed. */
export type PageForCode = Pick<SessionPage, 'url' | 'codeField'> & { codesTyped: number };

/** Whether to ask the user for a code for this page, and what to ask. */
export function codeRequest(page: PageForCode, maxCodes = MAX_CODES_PER_TASK): CodeRequest {
  if (!page.codeField) return { ask: false, reason: 'no_code_field' };
  const typed = page.codesTyped;
  if (typed >= maxCodes) {
    return {
      ask: false,
      reason: 'limit',
      message:
        `${siteName(page.url)} still asks for a code after ${typed} codes were typed; ` +
        'the assistant stopped asking. Tell the user and let them finish the sign-in themselves.',
    };
  }
  const field = page.codeField.name ? ` ("${page.codeField.name}")` : '';
  const again = typed > 0 ? ' The last code was not accepted.' : '';
  return {
    ask: true,
    ref: page.codeField.ref,
    attempt: typed + 1,
    question: `${siteName(page.url)} asks for a one-time code${field}.${again} Reply with the code.`,
  };
}
