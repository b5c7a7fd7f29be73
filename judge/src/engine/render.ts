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
 */
export function stableJson(value: JsonValue): string {
  return JSON.stringify(sortKeys(value), null, 2);
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
  let label = '';
  let n = index + 1;
  while (n > 0) {
    const rem = (n - 1) % 26;
    label = String.fromCharCode(65 + rem) + label;
    n = Math.floor((n - 1) / 26);
  }
  return label;
}

function optionKeys(question: Question): string[] {
  switch (question.type) {
    case 'noul':
      return ['true', 'false'];
    case 'choice':
      return Object.keys(question.criteria);
    case 'score':
      return question.criteria.map((_, i) => String(i));
  }
}

function optionLabels(question: Question, count: number): string[] {
  switch (question.type) {
    case 'noul':
      return ['Yes', 'No'];
    case 'choice':
      return Array.from({ length: count }, (_, i) => letterLabel(i));
    case 'score':
      return Array.from({ length: count }, (_, i) => String(i));
  }
}

/** The text of one option as it is listed after its label. */
export function optionText(question: Question, index: number): string {
  switch (question.type) {
    case 'noul': {
      const key = index === 0 ? 'true' : 'false';
      const described = question.criteria?.[key];
      return described === undefined || described === null ? (index === 0 ? 'yes' : 'no') : renderText(described);
    }
    case 'choice': {
      const key = Object.keys(question.criteria)[index];
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

/** Build the suffix for a subset of the question's options, with the given labels. */
function renderSuffix(question: Question, optionIndexes: number[], labels: string[]): string {
  const heading = question.type === 'score' ? 'Levels, from lowest to highest:' : 'Options:';
  const lines = optionIndexes.map((option, i) => `(${labels[i]}) ${optionText(question, option)}`);
  return `${questionLine(question)}${heading}\n${lines.join('\n')}\n\nReply with the label only.\n${ANSWER_CUE}`;
}

export function renderQuestion(name: string, question: Question): RenderedQuestion {
  const options = optionKeys(question);
  const labels = optionLabels(question, options.length);
  const indexes = options.map((_, i) => i);
  return { name, type: question.type, question, options, labels, suffix: renderSuffix(question, indexes, labels) };
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
  return { optionIndexes, labels, suffix: renderSuffix(rendered.question, optionIndexes, labels) };
}

/** Render a validated request: the state prefix once, then the questions in the caller's order. */
export function renderRequest(request: Pick<SystemOneRequest, 'state' | 'questions'>): RenderedRequest {
  return {
    prefix: renderState(request.state),
    questions: Object.entries(request.questions).map(([name, question]) => renderQuestion(name, question)),
  };
}
