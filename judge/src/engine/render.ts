// Deterministic rendering: the state once, first and byte-stable (this is what makes prefix caching work),
// then one suffix per question that lists its labelled options and ends with the answer cue.
//
// The answer cue contract (backends and tokenizers rely on it):
//   every suffix ends with ANSWER_CUE = "Answer: (" and the model's next token is the BARE label,
//   with no leading space: "Yes" / "No" (noul), "A".."Z" (choice), "0".."9" (score).
//   Options are listed the same way, "(A) …", so the cue reads as the start of an option.
//   After "(" these labels are single tokens for GPT-2, Llama 3 / cl100k and Qwen BPE tokenizers
//   (a leading-space form such as " 7" would split into " " + "7" for Llama 3 and Qwen).
//
// More than 26 choice options: the whole list cannot be labelled with single tokens. Such a question keeps
// spreadsheet-style labels ("AA", "AB", …) in `labels`/`suffix` for display only; backends score it in groups
// through `renderOptionGroup` (labels restart at "A" in every group) and combine (see engine/groups.ts).
import type { RenderedQuestion, RenderedRequest } from './backend';
import type { JsonValue, Question, SystemOneRequest } from '../protocol/types';
import { setOwn } from '../util/own';

export const ANSWER_CUE = 'Answer: (';
/** How every rendered state ends; a local tokenizer reads each question in the context of these characters. */
export const STATE_CLOSE = '</state>\n\n';
/** At most this many options are labelled with single letters in one prompt. */
export const MAX_SINGLE_TOKEN_OPTIONS = 26;

const PREAMBLE =
  'You are a careful judge. Read the state below, then answer the question that follows it with the label of exactly one option.\n\n';

/**
 * Stable JSON: object keys sorted by UTF-16 code units (JavaScript's default sort), two-space indent,
 * arrays in order, numbers and strings as JSON.stringify writes them. Identical values give identical bytes.
 * Written directly (no sorted copy of the value first); a value that is not plain JSON (undefined, a function, a
 * bigint, …) takes the reference path, JSON.stringify of a sorted copy, so the bytes are the same either way.
 */
export function stableJson(value: JsonValue): string {
  const direct = writeStable(value, '');
  return direct ?? JSON.stringify(sortKeys(value), null, 2);
}

/** The stable JSON of a plain JSON value at this indent, or undefined when it holds anything else. */
function writeStable(value: unknown, indent: string): string | undefined {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      break;
    default:
      return undefined;
  }
  if (value === null) return 'null';
  const inner = indent + '  ';
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    let out = '[\n' + inner;
    for (let i = 0; i < value.length; i++) {
      const item = writeStable(value[i], inner);
      if (item === undefined) return undefined;
      out += i === 0 ? item : ',\n' + inner + item;
    }
    return out + '\n' + indent + ']';
  }
  const keys = stableKeys(value);
  if (keys.length === 0) return '{}';
  let out = '{\n' + inner;
  for (let i = 0; i < keys.length; i++) {
    const item = writeStable((value as Record<string, unknown>)[keys[i]], inner);
    if (item === undefined) return undefined;
    out += (i === 0 ? '' : ',\n' + inner) + JSON.stringify(keys[i]) + ': ' + item;
  }
  return out + '\n' + indent + '}';
}

/**
 * The keys of an object in the order its sorted copy is written in: JSON.stringify lists an object's array-index
 * keys ("0", "7", "10", …) first, in numeric order, then the others in the order they were added (here: sorted).
 */
function stableKeys(value: object): string[] {
  const keys = Object.keys(value);
  let indexes = 0;
  for (let i = 0; i < keys.length; i++) if (isArrayIndex(keys[i])) indexes++;
  if (indexes === 0) return keys.sort();
  const numeric: string[] = [];
  const named: string[] = [];
  for (let i = 0; i < keys.length; i++) (isArrayIndex(keys[i]) ? numeric : named).push(keys[i]);
  numeric.sort((a, b) => Number(a) - Number(b));
  named.sort();
  return numeric.concat(named);
}

/** Whether a property key is an array index: the canonical decimal form of an integer from 0 to 2³² − 2. */
function isArrayIndex(key: string): boolean {
  const first = key.charCodeAt(0);
  if (!(first >= 48 && first <= 57)) return false;
  const n = Number(key);
  return n >>> 0 === n && n !== 4294967295 && String(n) === key;
}

function sortKeys(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    const sorted: { [key: string]: JsonValue } = {};
    for (const key of Object.keys(value).sort()) setOwn(sorted, key, sortKeys(value[key]));
    return sorted;
  }
  return value;
}

/** Free text stays as it is; any other JSON value is rendered as stable JSON. */
export function renderText(value: JsonValue): string {
  return typeof value === 'string' ? value : stableJson(value);
}

/** The state prefix: the same bytes for the same state, whatever the questions. */
export function renderState(state: SystemOneRequest['state']): string {
  return `${PREAMBLE}<state>\n${renderText(state)}\n${STATE_CLOSE}`;
}

/** "A".."Z", then "AA", "AB", … (spreadsheet columns). */
export function letterLabel(index: number): string {
  if (index >= 0 && index < 26) return LETTERS[index];
  let label = '';
  let n = index + 1;
  while (n > 0) {
    const rem = (n - 1) % 26;
    label = String.fromCharCode(65 + rem) + label;
    n = Math.floor((n - 1) / 26);
  }
  return label;
}

const LETTERS = Array.from({ length: 26 }, (_, i) => String.fromCharCode(65 + i));

function optionKeys(question: Question): string[] {
  switch (question.type) {
    case 'noul':
      return ['true', 'false'];
    case 'choice':
      return Object.keys(question.criteria);
    case 'score': {
      const keys: string[] = [];
      for (let i = 0; i < question.criteria.length; i++) keys.push(String(i));
      return keys;
    }
  }
}

function optionLabels(question: Question, options: string[]): string[] {
  switch (question.type) {
    case 'noul':
      return ['Yes', 'No'];
    case 'choice': {
      const labels: string[] = [];
      for (let i = 0; i < options.length; i++) labels.push(letterLabel(i));
      return labels;
    }
    case 'score':
      // The labels of a score are its option keys, "0", "1", …
      return options.slice();
  }
}

/** The text of one option as it is listed after its label. */
export function optionText(question: Question, index: number): string {
  return optionTextOf(question, index, question.type === 'choice' ? Object.keys(question.criteria) : undefined);
}

/** optionText, given the choice's keys (read once per question, not once per option). */
function optionTextOf(question: Question, index: number, choiceKeys: string[] | undefined): string {
  switch (question.type) {
    case 'noul': {
      const key = index === 0 ? 'true' : 'false';
      const described = question.criteria?.[key];
      return described === undefined || described === null ? (index === 0 ? 'yes' : 'no') : renderText(described);
    }
    case 'choice': {
      const key = choiceKeys![index];
      const description = question.criteria[key];
      return description === null || description === undefined ? key : `${key}: ${renderText(description)}`;
    }
    case 'score':
      return `${renderText(question.criteria[index])}`;
  }
}

function questionLine(question: Question): string {
  if (question.instructions !== undefined && question.instructions !== null) {
    return `Question:\n${renderText(question.instructions)}\n`;
  }
  if (question.type === 'noul') return 'Question:\nWhich of these holds?\n';
  if (question.type === 'score') return 'Question:\nWhich level fits best, from the lowest (0) to the highest?\n';
  return 'Question:\nWhich option fits best?\n';
}

/** Build the suffix for a subset of the question's options (all of them when `optionIndexes` is undefined). */
function renderSuffix(
  question: Question,
  optionIndexes: number[] | undefined,
  labels: string[],
  choiceKeys: string[] | undefined,
): string {
  const heading = question.type === 'score' ? 'Levels, from lowest to highest:' : 'Options:';
  let lines = '';
  for (let i = 0; i < labels.length; i++) {
    const option = optionIndexes === undefined ? i : optionIndexes[i];
    lines += `${i === 0 ? '' : '\n'}(${labels[i]}) ${optionTextOf(question, option, choiceKeys)}`;
  }
  return `${questionLine(question)}${heading}\n${lines}\n\nReply with the label only.\n${ANSWER_CUE}`;
}

export function renderQuestion(name: string, question: Question): RenderedQuestion {
  const options = optionKeys(question);
  const labels = optionLabels(question, options);
  const suffix = renderSuffix(question, undefined, labels, question.type === 'choice' ? options : undefined);
  return { name, type: question.type, question, options, labels, suffix };
}

/** A group of a question's options rendered on its own, labelled "A", "B", … from the start. */
export interface OptionGroup {
  /** Indexes into `RenderedQuestion.options`. */
  optionIndexes: number[];
  labels: string[];
  suffix: string;
}

export function renderOptionGroup(rendered: RenderedQuestion, optionIndexes: number[]): OptionGroup {
  const labels =
    rendered.type === 'choice'
      ? optionIndexes.map((_, i) => letterLabel(i))
      : optionIndexes.map((i) => rendered.labels[i]);
  const choiceKeys = rendered.question.type === 'choice' ? Object.keys(rendered.question.criteria) : undefined;
  return { optionIndexes, labels, suffix: renderSuffix(rendered.question, optionIndexes, labels, choiceKeys) };
}

/** Every option of a question in one prompt under labels the backend chose (e.g. single tokens of its tokenizer). */
export function renderWithLabels(rendered: RenderedQuestion, labels: string[]): OptionGroup {
  if (labels.length !== rendered.options.length) throw new Error('renderWithLabels: one label per option');
  const optionIndexes = rendered.options.map((_, i) => i);
  const choiceKeys = rendered.question.type === 'choice' ? Object.keys(rendered.question.criteria) : undefined;
  return { optionIndexes, labels, suffix: renderSuffix(rendered.question, optionIndexes, labels, choiceKeys) };
}

/** Render a validated request: the state prefix once, then the questions in the caller's order. */
export function renderRequest(request: Pick<SystemOneRequest, 'state' | 'questions'>): RenderedRequest {
  const questions: RenderedQuestion[] = [];
  for (const name of Object.keys(request.questions)) questions.push(renderQuestion(name, request.questions[name]));
  return { prefix: renderState(request.state), questions };
}
