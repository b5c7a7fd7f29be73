// A browser step's item: the page as text for the model (`result`, marked as outside data), and what the code
// hand-off needs to decide.
import type { IDataObject } from 'n8n-workflow';
import { describePage, markUntrusted, type SessionPage } from 'assistant-core/browser';

export function stepResult(page: SessionPage, done?: string): IDataObject {
  return {
    result: [done, markUntrusted(`the page ${page.url}`, describePage(page))].filter(Boolean).join('\n\n'),
    url: page.url,
    title: page.title,
    codeField: page.codeField,
    codesTyped: page.task.codesTyped,
  };
}
