// The chat fake's memory-capture extractor: what a model asked for a record_extraction call (assistant/src/memory/
// capture.ts) answers, made deterministic. It reads the user's lines of the conversation ("User: …"; the assistant's
// are left alone), sentence by sentence:
//   - capitalised multi-word names are entities: a company when the name contains "&" or ends in GmbH, AG or Inc,
//     a person otherwise ("Stefan Huber", "Huber & Partner");
//   - "X is my Y" and "X replaces Z as my Y" are the relation <y>_of from X to "the user", and a fact; a person
//     "from" a company is works_at; "X's Y is …" is a fact; evidence is always the sentence, quoted as written.
// Markers in the conversation make it answer what a weak model does: `[bad-extraction]` an invalid extraction
// (entities as a string) every time, `[bad-extraction-once]` only before the retry.
export const EXTRACTION_TOOL = 'record_extraction';

interface Entity {
  name: string;
  type: 'person' | 'company';
}
interface Relation {
  from: string;
  relation: string;
  to: string;
  evidence: string;
}
interface Fact {
  text: string;
  evidence: string;
}

const NAME = /[A-Z][\p{L}-]*(?:\s+(?:&\s+)?[A-Z][\p{L}-]*)+/gu;
const NOT_NAME_START = new Set(['The', 'My', 'A', 'An', 'Our', 'This', 'That', 'Yes', 'No', 'Hello', 'Hi', 'User']);
const COMPANY = /&|\s(GmbH|AG|Inc)$/;
const IS_MY = /^(.+?) is my ([a-z]+)/;
const REPLACES = /^(.+?) replaces (.+?) as my ([a-z]+)/;
const POSSESSIVE = /^[A-Z][\p{L}-]*'s [a-z]+ is /u;
const FROM_COMPANY = /([A-Z][\p{L}-]*(?:\s+[A-Z][\p{L}-]*)+) from ([A-Z][^,.;]*?(?:&\s+[A-Z][\p{L}-]*|GmbH|AG|Inc))\b/u;

/** The user's sentences: lines of a "User:" speaker (or unlabelled lines), split after . ! ?, without the stop. */
function userSentences(conversation: string): string[] {
  const sentences: string[] = [];
  for (const line of conversation.split('\n')) {
    const labelled = /^(\w+): (.*)$/.exec(line.trim());
    if (labelled && labelled[1] !== 'User') continue;
    const text = labelled ? labelled[2] : line.trim();
    for (const sentence of text.split(/(?<=[.!?])\s+/)) {
      const bare = sentence.replace(/[.!?]+$/, '').trim();
      if (bare) sentences.push(bare);
    }
  }
  return sentences;
}

function namesIn(sentence: string): Entity[] {
  return [...sentence.matchAll(NAME)]
    .map((match) => match[0].split(/\s+/))
    .map((words) => (NOT_NAME_START.has(words[0]) ? words.slice(1) : words))
    .filter((words) => words.length >= 2)
    .map((words) => words.join(' '))
    .map((name) => ({ name, type: COMPANY.test(name) ? 'company' : 'person' }));
}

/** The first name in `text`, or `text` itself. */
const subjectOf = (text: string): string => namesIn(text)[0]?.name ?? text.trim();

/** The extraction the fake model gives for a conversation. */
export function fakeExtraction(conversation: string): { entities: Entity[]; relations: Relation[]; facts: Fact[] } {
  const entities: Entity[] = [];
  const relations: Relation[] = [];
  const facts: Fact[] = [];
  for (const sentence of userSentences(conversation)) {
    for (const entity of namesIn(sentence))
      if (!entities.some((known) => known.name === entity.name)) entities.push(entity);
    const replaces = REPLACES.exec(sentence);
    const isMy = replaces ? null : IS_MY.exec(sentence);
    if (replaces) relations.push(userRelation(subjectOf(replaces[1]), replaces[3], sentence));
    if (isMy) relations.push(userRelation(subjectOf(isMy[1]), isMy[2], sentence));
    const works = FROM_COMPANY.exec(sentence);
    if (works) relations.push({ from: works[1], relation: 'works_at', to: works[2], evidence: sentence });
    if (replaces || isMy || POSSESSIVE.test(sentence)) facts.push({ text: sentence, evidence: sentence });
  }
  return { entities, relations, facts };
}

const userRelation = (from: string, role: string, evidence: string): Relation => ({
  from,
  relation: `${role}_of`,
  to: 'the user',
  evidence,
});

/**
 * The arguments of the fake's record_extraction call: an invalid extraction for `[bad-extraction]` (and for
 * `[bad-extraction-once]` before the retry), the deterministic one otherwise.
 */
export function fakeExtractionArguments(conversation: string, isRetry: boolean): Record<string, unknown> {
  const bad = conversation.includes('[bad-extraction]') || (conversation.includes('[bad-extraction-once]') && !isRetry);
  if (bad) return { entities: 'Stefan Huber', relations: [], facts: [] };
  return { ...fakeExtraction(conversation) };
}
