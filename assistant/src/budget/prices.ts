// What a model call costs: tokens times a dated price per model (US dollars per million tokens: input, cached input,
// output), the operator's override (ASSISTANT_MODEL_PRICES) first, the provider's own reported cost where it gives one
// (OpenRouter's usage.cost), and 0 on a local model server. A model without a price is priced at a conservative
// fallback, so that a cap in money still holds; the ledger says which price was used.
import { AssistantInputError } from '../errors';

export interface ModelPrice {
  /** Dollars per million prompt tokens. */
  input: number;
  /** Dollars per million cached prompt tokens. */
  cachedInput: number;
  /** Dollars per million output tokens. */
  output: number;
  /** Where the price comes from: "table 2026-11-01", "override", "fallback", "local". */
  source: string;
}

const TABLE_DATE = '2026-11-01';

/** Published list prices (the providers' pricing pages) on TABLE_DATE; first match wins, ids without a prefix. */
const PRICE_TABLE: Array<[RegExp, number, number, number]> = [
  [/^gpt-4o-mini/, 0.15, 0.075, 0.6],
  [/^gpt-4o/, 2.5, 1.25, 10],
  [/^gpt-4\.1-nano/, 0.1, 0.025, 0.4],
  [/^gpt-4\.1-mini/, 0.4, 0.1, 1.6],
  [/^gpt-4\.1/, 2, 0.5, 8],
  [/^gpt-5-nano/, 0.05, 0.005, 0.4],
  [/^gpt-5-mini/, 0.25, 0.025, 2],
  [/^gpt-5/, 1.25, 0.125, 10],
  [/^o4-mini/, 1.1, 0.275, 4.4],
  [/^o3/, 2, 0.5, 8],
  [/^claude-.*haiku/, 1, 0.1, 5],
  [/^claude-.*sonnet/, 3, 0.3, 15],
  [/^claude-.*opus/, 15, 1.5, 75],
  [/^gemini-2\.5-flash/, 0.3, 0.075, 2.5],
  [/^gemini-2\.5-pro/, 1.25, 0.31, 10],
  [/^deepseek-chat/, 0.27, 0.07, 1.1],
  [/^deepseek-reasoner/, 0.55, 0.14, 2.19],
];

/** For a model the table lacks on a paid provider: dear on purpose, so that a money cap errs on the safe side. */
export const FALLBACK_PRICE: ModelPrice = { input: 10, cachedInput: 10, output: 30, source: 'fallback' };
const LOCAL_PRICE: ModelPrice = { input: 0, cachedInput: 0, output: 0, source: 'local' };

/** "model=input/cached/output" entries (dollars per million tokens), comma- or space-separated. */
export function parsePriceOverrides(
  raw: string | undefined,
  field = 'ASSISTANT_MODEL_PRICES',
): Map<string, ModelPrice> {
  const prices = new Map<string, ModelPrice>();
  for (const entry of (raw ?? '').split(/[\s,]+/).filter(Boolean)) {
    const at = entry.lastIndexOf('=');
    const parts = entry.slice(at + 1).split('/');
    const numbers = parts.map(Number);
    if (at <= 0 || parts.length !== 3 || numbers.some((n, i) => !/^\d+(\.\d+)?$/.test(parts[i]) || n > 10_000))
      throw new AssistantInputError(
        field,
        `"${entry}" must be model=input/cached/output in dollars per million tokens, e.g. gpt-4o-mini=0.15/0.075/0.6`,
      );
    prices.set(entry.slice(0, at), {
      input: numbers[0],
      cachedInput: numbers[1],
      output: numbers[2],
      source: 'override',
    });
  }
  return prices;
}

/** The price of `model` at a provider; `local` (a model server on this machine or network) is free. */
export function priceOf(model: string, overrides: Map<string, ModelPrice>, local: boolean): ModelPrice {
  const override = overrides.get(model);
  if (override) return override;
  if (local) return LOCAL_PRICE;
  const bare = model.slice(model.lastIndexOf('/') + 1).toLowerCase();
  for (const [pattern, input, cachedInput, output] of PRICE_TABLE)
    if (pattern.test(bare)) return { input, cachedInput, output, source: `table ${TABLE_DATE}` };
  return FALLBACK_PRICE;
}

export interface TokenCounts {
  prompt: number;
  cached: number;
  output: number;
}

/** Millionths of a dollar, rounded up (a cap never loses a fraction). */
export function costMicros(tokens: TokenCounts, price: ModelPrice): number {
  const uncached = Math.max(0, tokens.prompt - tokens.cached);
  return Math.ceil(uncached * price.input + tokens.cached * price.cachedInput + tokens.output * price.output);
}

/** Whether a base URL is a model server on this machine or a private network (free to call). */
export function isLocalProvider(baseUrl: string): boolean {
  const host = new URL(baseUrl).hostname.replace(/^\[|\]$/g, '');
  return (
    host === 'localhost' ||
    host === 'host.docker.internal' ||
    /^127\./.test(host) ||
    host === '::1' ||
    /^10\./.test(host) ||
    /^192\.168\./.test(host) ||
    /^172\.(1[6-9]|2\d|3[01])\./.test(host) ||
    !host.includes('.')
  );
}
