// PDF → text with unpdf (pdf.js built for servers, no worker, no canvas): the text of every page and the title from
// the document's metadata.
import { extractText, getDocumentProxy, getMeta } from 'unpdf';

export interface PdfText {
  title: string | undefined;
  pages: number;
  /** The pages' text, separated by blank lines. */
  text: string;
}

/** True when the bytes start like a PDF, whatever the Content-Type said. */
export const looksLikePdf = (bytes: Uint8Array): boolean => Buffer.from(bytes.subarray(0, 5)).toString() === '%PDF-';

export async function extractPdfText(bytes: Uint8Array): Promise<PdfText> {
  // pdf.js takes ownership of the buffer it is given: a copy keeps the caller's bytes intact.
  const document = await getDocumentProxy(new Uint8Array(bytes));
  try {
    const [{ text }, meta] = await Promise.all([extractText(document, { mergePages: false }), getMeta(document)]);
    const title = (meta.info as { Title?: unknown } | undefined)?.Title;
    return {
      title: typeof title === 'string' && title.trim() !== '' ? title.trim() : undefined,
      pages: document.numPages,
      text: text
        .map((page) => page.replace(/[ \t]+\n/g, '\n').trim())
        .filter((page) => page !== '')
        .join('\n\n'),
    };
  } finally {
    await document.destroy();
  }
}
