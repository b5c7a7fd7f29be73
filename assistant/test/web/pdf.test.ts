// PDF text through unpdf (pdf.js): a real PDF written by the test, its text and title.
import { describe, expect, it } from 'vitest';

import { extractPdfText, looksLikePdf } from '../../src/web/pdf';
import { minimalPdf } from './fake-site';

describe('extractPdfText', () => {
  it('reads the text and the title of a PDF', async () => {
    const pdf = minimalPdf(['Quarterly report (Q3)', 'Revenue grew by 12 percent.'], 'Report Q3');
    expect(looksLikePdf(pdf)).toBe(true);
    const read = await extractPdfText(pdf);
    expect(read).toEqual({ title: 'Report Q3', pages: 1, text: 'Quarterly report (Q3)\nRevenue grew by 12 percent.' });
  });

  it('fails on bytes that are not a PDF', async () => {
    expect(looksLikePdf(Buffer.from('<html>'))).toBe(false);
    await expect(extractPdfText(Buffer.from('%PDF-1.4 but nothing else'))).rejects.toThrow();
  });
});
