// A byte-level BPE tokenizer (GPT-2 style tokenizer.json) for generated test models.
// Merges are learned from a small built-in English text, so ordinary prose costs fewer tokens than bytes,
// and the answer labels "Yes" and "No" are added as single tokens (letters and digits are single bytes).

const TRAINING_TEXT = `You are a careful judge. Read the state below, then answer the question that follows it with the label of exactly one option.
Question: Which option fits best? Options: Reply with the label only. Answer: Levels, from lowest to highest.
The customer is writing because the feature has stopped working. We have attempted this operation several times,
and each time it fails. Is the customer asking for a refund? Does the message mention a deadline for the resolution?
The team will review the request and reply within the week. Please describe the problem, the account and the plan.
This is an important issue for our users and the business. They expect an answer and a fix as soon as possible.
{"name": "value", "status": "open", "priority": "high", "description": "the item is not available"}`;

/** GPT-2's reversible byte → printable character map. */
export function byteToUnicode(): string[] {
  const printable: number[] = [];
  for (let b = 33; b <= 126; b++) printable.push(b);
  for (let b = 161; b <= 172; b++) printable.push(b);
  for (let b = 174; b <= 255; b++) printable.push(b);
  const map: string[] = new Array(256);
  let extra = 0;
  for (let b = 0; b < 256; b++) {
    map[b] = printable.includes(b) ? String.fromCharCode(b) : String.fromCharCode(256 + extra++);
  }
  return map;
}

const GPT2_SPLIT = /'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+/gu;

function words(text: string, chars: string[]): string[][] {
  const out: string[][] = [];
  for (const piece of text.match(GPT2_SPLIT) ?? []) {
    out.push(Array.from(new TextEncoder().encode(piece), (b) => chars[b]));
  }
  return out;
}

export interface TokenizerFixture {
  tokenizerJson: object;
  tokenizerConfig: object;
  /** Tokens in the vocabulary (the model's vocab size may be larger: unused rows). */
  size: number;
  eosId: number;
}

export interface TokenizerFixtureOptions {
  /** Learned merges (on top of the 256 bytes); fewer when the text runs out of repeated pairs. */
  merges?: number;
  /** Text to learn the merges from (default: a short built-in English sample). */
  trainingText?: string;
  /** Make "Yes" and "No" single tokens (default true). False gives multi-token labels. */
  singleTokenYesNo?: boolean;
}

export function buildTokenizerFixture(options: TokenizerFixtureOptions = {}): TokenizerFixture {
  const chars = byteToUnicode();
  const vocab: Record<string, number> = {};
  chars.forEach((c, b) => (vocab[c] = b));
  const merges: string[] = [];
  const addMerge = (a: string, b: string): void => {
    if (vocab[a + b] !== undefined) return;
    merges.push(`${a} ${b}`);
    vocab[a + b] = Object.keys(vocab).length;
  };
  if (options.singleTokenYesNo !== false) {
    addMerge('Y', 'e');
    addMerge('Ye', 's');
    addMerge('N', 'o');
  }
  // Learn merges greedily over the distinct words: the most frequent adjacent pair, ties broken by the pair's text.
  const wordCounts = new Map<string, number>();
  for (const w of words(options.trainingText ?? TRAINING_TEXT, chars)) wordCounts.set(w.join('\u0000'), (wordCounts.get(w.join('\u0000')) ?? 0) + 1);
  const corpus = [...wordCounts].map(([w, count]) => ({ symbols: w.split('\u0000'), count }));
  for (let round = 0; round < (options.merges ?? 200); round++) {
    const counts = new Map<string, number>();
    for (const { symbols, count } of corpus) {
      for (let i = 0; i + 1 < symbols.length; i++) {
        const key = `${symbols[i]} ${symbols[i + 1]}`;
        counts.set(key, (counts.get(key) ?? 0) + count);
      }
    }
    let best: string | undefined;
    let bestCount = 1;
    for (const [key, count] of counts) {
      if (count > bestCount || (count === bestCount && best !== undefined && key < best)) {
        best = key;
        bestCount = count;
      }
    }
    if (!best) break;
    const [a, b] = best.split(' ');
    addMerge(a, b);
    for (const { symbols } of corpus) {
      for (let i = 0; i + 1 < symbols.length; i++) {
        if (symbols[i] === a && symbols[i + 1] === b) symbols.splice(i, 2, a + b);
      }
    }
  }
  const eosId = Object.keys(vocab).length;
  const eos = '<|endoftext|>';
  const byteLevel = { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true };
  return {
    size: eosId + 1,
    eosId,
    tokenizerJson: {
      version: '1.0',
      truncation: null,
      padding: null,
      added_tokens: [{ id: eosId, content: eos, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true }],
      normalizer: null,
      pre_tokenizer: byteLevel,
      post_processor: { ...byteLevel, trim_offsets: false },
      decoder: byteLevel,
      model: {
        type: 'BPE',
        dropout: null,
        unk_token: null,
        continuing_subword_prefix: '',
        end_of_word_suffix: '',
        fuse_unk: false,
        byte_fallback: false,
        ignore_merges: false,
        vocab,
        merges,
      },
    },
    tokenizerConfig: {
      tokenizer_class: 'GPT2Tokenizer',
      bos_token: eos,
      eos_token: eos,
      unk_token: eos,
      add_bos_token: false,
      model_max_length: 8192,
    },
  };
}
