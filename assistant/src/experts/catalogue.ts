// The expert catalogue: experts the operator can install beside the three shipped ones, kept as data in this
// repository (catalogue.json, next to this file) and never fetched from anywhere. The JSON is imported, so tsc copies
// it into dist and esbuild inlines it into the node bundles. Each entry is checked by validateCatalogue: its tools
// must be the assistant's own, minus the ones no expert may have.
import { AssistantInputError } from '../errors';
import { requireChatModel } from '../settings/settings';
import { isDelegation, TOOL_REGISTRY } from '../tools/registry';
import catalogueData from './catalogue.json';
import { SHIPPED_EXPERTS } from './registry';

/** The provider of an expert's suggested model: the Chat Model node its workflow would use. */
export const EXPERT_PROVIDERS = [
  'openai',
  'anthropic',
  'gemini',
  'mistral',
  'deepseek',
  'openrouter',
  'ollama',
] as const;
export type ExpertProvider = (typeof EXPERT_PROVIDERS)[number];

/**
 * The main agent's tools an expert can be given (the tool registry without its ask_<expert> delegation tools). The
 * catalogue test compares this with workflows/assistant-agent.json.
 */
export const ASSISTANT_TOOLS: readonly string[] = TOOL_REGISTRY.filter((tool) => !isDelegation(tool))
  .map((tool) => tool.name)
  .sort();

/**
 * Tools no expert may have, even though the main agent does: the destructive ones and the ones that wait for the
 * operator's yes (wiping everything, installing or removing experts and building, disabling or deleting tools) stay
 * with the user's own turn.
 */
export const FORBIDDEN_EXPERT_TOOLS: readonly string[] = TOOL_REGISTRY.filter(
  (tool) => tool.effect === 'destructive' || tool.approval === 'ask-operator',
)
  .map((tool) => tool.name)
  .sort();

/** The ids of the shipped experts, which a catalogue entry may not take. */
export const RESERVED_EXPERT_IDS: readonly string[] = SHIPPED_EXPERTS.map((expert) => expert.id);

/** How long an expert's system prompt may be, in words. */
export const SYSTEM_PROMPT_WORDS = { min: 80, max: 250 } as const;

export interface CatalogueExpert {
  /** Kebab-case, unique, not a shipped expert's id; the main agent's tool for it is ask_<id>. */
  id: string;
  name: string;
  /** One sentence: when the main agent should delegate to it. */
  description: string;
  /** Its agent's system prompt (English, 80 to 250 words). */
  systemPrompt: string;
  /** The assistant's tools it gets. */
  tools: string[];
  /** The model it is meant for; the operator may give it another. */
  suggestedModel: { provider: ExpertProvider; model: string };
  tags: string[];
}

/** What is wrong with one catalogue entry: its id (or #<index> without one), the field, and why. */
export interface CatalogueProblem {
  id: string;
  field: string;
  reason: string;
}

/** What entries are checked against. */
export interface CatalogueRules {
  tools: readonly string[];
  providers: readonly string[];
  reserved: readonly string[];
}

const ID_PATTERN = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;
const ID_MAX = 40;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const text = (value: unknown): string => (typeof value === 'string' ? value.trim() : '');

const words = (value: string): number => (value === '' ? 0 : value.split(/\s+/).length);

/** Every problem of every entry, in order; empty when the catalogue is valid. */
export function validateCatalogue(entries: readonly unknown[], rules: CatalogueRules): CatalogueProblem[] {
  const problems: CatalogueProblem[] = [];
  const seen = new Set<string>();
  const known = new Set(rules.tools);
  const providers = new Set(rules.providers);
  const reserved = new Set(rules.reserved);

  entries.forEach((entry, index) => {
    const rawId = isRecord(entry) ? text(entry.id) : '';
    const id = rawId || `#${index}`;
    const problem = (field: string, reason: string) => problems.push({ id, field, reason });
    if (!isRecord(entry)) {
      problem('entry', 'must be an object');
      return;
    }

    // id
    if (typeof entry.id !== 'string' || rawId === '') problem('id', 'is missing');
    else if (entry.id !== rawId || rawId.length < 2 || rawId.length > ID_MAX || !ID_PATTERN.test(rawId)) {
      problem('id', `must be kebab-case of 2 to ${ID_MAX} characters, e.g. travel-planner`);
    } else if (reserved.has(rawId)) problem('id', `"${rawId}" is reserved for a shipped expert`);
    else if (seen.has(rawId)) problem('id', `"${rawId}" is used by another entry`);
    if (rawId) seen.add(rawId);

    // name, description
    const name = text(entry.name);
    if (name === '') problem('name', 'is missing');
    else if (name.length > 60) problem('name', 'must be at most 60 characters');
    const description = text(entry.description);
    if (description === '') problem('description', 'is missing');
    else if (description.length > 300 || /\n/.test(description)) {
      problem('description', 'must be one sentence of at most 300 characters');
    }

    // systemPrompt
    const prompt = text(entry.systemPrompt);
    const count = words(prompt);
    if (count === 0) problem('systemPrompt', 'is missing');
    else if (count < SYSTEM_PROMPT_WORDS.min) {
      problem('systemPrompt', `is too short (${count} words, at least ${SYSTEM_PROMPT_WORDS.min})`);
    } else if (count > SYSTEM_PROMPT_WORDS.max) {
      problem('systemPrompt', `is too long (${count} words, at most ${SYSTEM_PROMPT_WORDS.max})`);
    }

    // tools
    if (!Array.isArray(entry.tools) || entry.tools.length === 0) problem('tools', 'must list at least one tool');
    else {
      const given = new Set<string>();
      for (const tool of entry.tools) {
        if (typeof tool !== 'string' || tool === '') problem('tools', 'must be tool names');
        else if (FORBIDDEN_EXPERT_TOOLS.includes(tool)) problem('tools', `"${tool}" may not be given to an expert`);
        else if (tool.startsWith('ask_') && tool !== 'ask_user') {
          problem('tools', `"${tool}" delegates to another expert, which an expert may not do`);
        } else if (!known.has(tool)) problem('tools', `"${tool}" is not a tool of the assistant`);
        else if (given.has(tool)) problem('tools', `"${tool}" is listed twice`);
        if (typeof tool === 'string') given.add(tool);
      }
    }

    // suggestedModel
    if (!isRecord(entry.suggestedModel)) problem('suggestedModel', 'is missing');
    else {
      const { provider, model } = entry.suggestedModel;
      if (typeof provider !== 'string' || !providers.has(provider)) {
        problem('suggestedModel.provider', `must be one of ${[...providers].join(', ')}`);
      }
      if (text(model) === '') problem('suggestedModel.model', 'is missing');
      else {
        try {
          requireChatModel(model);
        } catch {
          problem('suggestedModel.model', 'must be a model name of 1 to 200 characters without spaces');
        }
      }
    }

    // tags
    if (!Array.isArray(entry.tags) || entry.tags.length === 0) problem('tags', 'must list at least one tag');
    else if (entry.tags.some((tag) => text(tag) === '' || text(tag).length > 30)) {
      problem('tags', 'must be words of at most 30 characters');
    }
  });
  return problems;
}

/** The shipped catalogue, validated; throws an AssistantInputError naming the first problem if it is not valid. */
export function loadCatalogue(): CatalogueExpert[] {
  const entries: readonly unknown[] = catalogueData;
  const problems = validateCatalogue(entries, {
    tools: ASSISTANT_TOOLS,
    providers: EXPERT_PROVIDERS,
    reserved: RESERVED_EXPERT_IDS,
  });
  if (problems.length > 0) {
    const first = problems[0];
    throw new AssistantInputError(`catalogue[${first.id}].${first.field}`, first.reason);
  }
  // Copies, so a caller cannot change the shipped data for the next one.
  return (entries as CatalogueExpert[]).map((expert) => ({
    id: expert.id,
    name: expert.name.trim(),
    description: expert.description.trim(),
    systemPrompt: expert.systemPrompt.trim(),
    tools: [...expert.tools],
    suggestedModel: { provider: expert.suggestedModel.provider, model: expert.suggestedModel.model.trim() },
    tags: expert.tags.map((tag) => tag.trim()),
  }));
}
