// What the ONNX benchmarks feed the backend: a state of about S tokens drawn from ticket words (seeded), N noul
// questions of ~15 tokens after it, and the timing helpers (median, nearest-rank percentile, a millisecond timer).
import type { RenderedQuestion } from '../../src/engine/backend';
import { seededRandom } from '../fixtures/generate-model';

export const WORDS = (
  'customer order export failed twice since monday account plan seats invoice refund deadline friday support ' +
  'team data report error page login billing upgrade contract renewal urgent request reply week users access'
).split(' ');

/** A ticket of seeded words, at least `target` tokens as `countTokens` counts them; `head` starts it. */
export function stateOfTokens(countTokens: (text: string) => number, target: number, head = 'Ticket:\n'): string {
  const rand = seededRandom(400);
  let text = head;
  while (countTokens(text) < target) text += `${WORDS[Math.floor(rand() * WORDS.length)]} `;
  return text;
}

/** N noul questions with single-token labels Yes/No, rendered as the engine renders them. */
export function questions(n: number): RenderedQuestion[] {
  return Array.from({ length: n }, (_, i) => ({
    name: `q${i}`,
    type: 'noul' as const,
    question: { type: 'noul' as const, instructions: `q${i}` },
    options: ['true', 'false'],
    labels: ['Yes', 'No'],
    suffix: `\nQ${i}: ${WORDS[i % WORDS.length]} late? Answer: (`,
  }));
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** Nearest-rank percentile (p in 0..100): with few samples, p95 is the largest but one or the largest. */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)];
}

export async function timeIt(fn: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}
