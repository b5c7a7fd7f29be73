// A browser step's item: the page as text for the model (`result`), and what the code hand-off needs to decide.
import type { IDataObject } from 'n8n-workflow';
import { describePage, type SessionPage } from 'assistant-core/browser';

export function stepResult(page: SessionPage, done?: string): IDataObject {
  return {
    result: done ? `${done}\n\n${describePage(page)}` : describePage(page),
    url: page.url,
    title: page.title,
    codeField: page.codeField,
    codesTyped: page.task.codesTyped,
  };
}
