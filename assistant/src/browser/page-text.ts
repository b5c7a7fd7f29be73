// A browser page as the model reads it: where it is, its text, and the numbered elements to act on. Values of
// password fields and of fields filled with a secret never get here (the service hides them).
import type { SessionElement, SessionPage } from './protocol';

function quote(text: string): string {
  return JSON.stringify(text.length > 120 ? `${text.slice(0, 117)}...` : text);
}

function elementLine(element: SessionElement): string {
  let line = `[${element.ref}] ${element.role} ${quote(element.name)}`;
  if (element.value !== undefined && element.value !== '') line += ` = ${quote(element.value)}`;
  if (element.checked !== undefined) line += element.checked ? ' (checked)' : ' (not checked)';
  if (element.options?.length) line += ` options: ${element.options.map(quote).join(', ')}`;
  if (element.disabled) line += ' (disabled)';
  return line;
}

/** The page as text for the model. */
export function describePage(page: SessionPage): string {
  const lines = [`Page: ${page.title || '(no title)'}`, `URL: ${page.url}`, '', page.text.trim() || '(no text)'];
  if (page.truncated) lines.push('(the text was cut off here)');
  lines.push('', page.elements.length ? 'Elements (use the number as ref):' : 'No elements to act on.');
  for (const element of page.elements) lines.push(elementLine(element));
  if (page.refused.count > 0) {
    lines.push('', `${page.refused.count} request(s) of this page were refused by the outbound guard.`);
  }
  const task = page.task;
  lines.push(
    '',
    `Task: ${task.pages}/${task.maxPages} pages, ${Math.round(task.activeMs / 1000)}/${Math.round(task.maxActiveMs / 1000)} s used.`,
  );
  return lines.join('\n');
}
