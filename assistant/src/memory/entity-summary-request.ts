// The chat model request that rewrites one entity's summary (a person or thing of the knowledge graph) from the
// notes kept about it and its current relations (graph/entity-summaries.ts). The answer is read by readSummary
// (summary-request.ts). A static system message first, so a provider's prompt cache keeps it.
import { AssistantInputError } from '../errors';
import { ENTITY_TYPES, type EntityType } from '../graph/entities';
import { optionalEnum, requireText } from '../validate';

/** An entity summary longer than this is refused (graph/entity-summaries.ts). */
export const ENTITY_SUMMARY_CHARS = 500;
/** At most this many facts go into one request. */
const MAX_FACTS = 100;

export const ENTITY_SUMMARY_SYSTEM_PROMPT = [
  'You write the short summary an assistant keeps about one person or thing in its user’s life,',
  'from the notes it keeps and the current relations it knows.',
  'Say who or what it is to the user and the facts that matter most; keep names, numbers and dates as written;',
  'where notes disagree, the newer one holds. Never add anything the notes do not say.',
  `Answer with the summary only: plain sentences, no heading, no list markers, at most ${ENTITY_SUMMARY_CHARS} characters.`,
].join(' ');

/** The OpenAI-compatible chat completions body asking for the summary of the entity `name` of `type` from `facts`. */
export function entitySummaryRequest(
  nameInput: unknown,
  typeInput: unknown,
  factsInput: unknown,
  options: { model: unknown },
) {
  const name = requireText(nameInput, 'name', 200).trim();
  const type: EntityType | undefined = optionalEnum(typeInput, 'type', ENTITY_TYPES);
  if (!type) throw new AssistantInputError('type', `must be one of ${ENTITY_TYPES.join(', ')}`);
  const facts = requireFacts(factsInput);
  const model = requireText(options?.model, 'model', 500);
  return {
    model,
    temperature: 0,
    messages: [
      { role: 'system', content: ENTITY_SUMMARY_SYSTEM_PROMPT },
      {
        role: 'user',
        content: `The ${type} "${name}". What the notes and relations say:\n\n${facts.map((fact) => `- ${fact}`).join('\n')}`,
      },
    ],
  };
}

function requireFacts(value: unknown): string[] {
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_FACTS)
    throw new AssistantInputError('facts', `must be a list of 1 to ${MAX_FACTS} texts`);
  return value.map((fact, index) => requireText(fact, `facts[${index}]`, 100_000).replace(/\s+/g, ' ').trim());
}
