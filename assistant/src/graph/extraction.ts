// The shape a capture's extraction must have, checked in code; every error names the field
// ("relations[1].evidence: must be a non-empty string"), so the capture can retry once with it.
import { AssistantInputError } from '../errors';
import { requireText } from '../validate';
import { ENTITY_TYPES, type EntityType } from './entities';

export interface ExtractedEntity {
  name: string;
  type: EntityType;
  aliases: string[];
}

export interface ExtractedRelation {
  from: string;
  relation: string;
  to: string;
  /** The quoted words it came from. */
  evidence: string;
}

export interface ExtractedFact {
  text: string;
  /** What it is about ("my accountant"); derived from the text when not given. */
  subject?: string;
  evidence: string;
}

export interface Extraction {
  entities: ExtractedEntity[];
  relations: ExtractedRelation[];
  facts: ExtractedFact[];
}

export const EXTRACTION_LIMITS = { entities: 50, relations: 50, facts: 30, aliases: 10 } as const;

/** The JSON schema of an extraction, for the tool call that asks the model for one. */
export const EXTRACTION_SCHEMA = {
  type: 'object',
  required: ['entities', 'relations', 'facts'],
  properties: {
    entities: {
      type: 'array',
      maxItems: EXTRACTION_LIMITS.entities,
      items: {
        type: 'object',
        required: ['name', 'type'],
        properties: {
          name: { type: 'string' },
          type: { type: 'string', enum: [...ENTITY_TYPES] },
          aliases: { type: 'array', items: { type: 'string' }, maxItems: EXTRACTION_LIMITS.aliases },
        },
      },
    },
    relations: {
      type: 'array',
      maxItems: EXTRACTION_LIMITS.relations,
      items: {
        type: 'object',
        required: ['from', 'relation', 'to', 'evidence'],
        properties: {
          from: { type: 'string' },
          relation: {
            type: 'string',
            description: 'snake_case, e.g. accountant_of, works_at; "the user" for the user',
          },
          to: { type: 'string' },
          evidence: { type: 'string', description: 'the quoted words it came from' },
        },
      },
    },
    facts: {
      type: 'array',
      maxItems: EXTRACTION_LIMITS.facts,
      items: {
        type: 'object',
        required: ['text', 'evidence'],
        properties: {
          text: { type: 'string' },
          subject: { type: 'string', description: 'what it is about, e.g. "my accountant"' },
          evidence: { type: 'string', description: 'the quoted words it came from' },
        },
      },
    },
  },
} as const;

function requireObject(value: unknown, field: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new AssistantInputError(field, 'must be an object');
  return value as Record<string, unknown>;
}

function requireList(value: unknown, field: string, max: number): unknown[] {
  if (!Array.isArray(value)) throw new AssistantInputError(field, 'must be a list (empty when there is none)');
  if (value.length > max) throw new AssistantInputError(field, `must have at most ${max} items`);
  return value;
}

const text = (value: unknown, field: string, max: number) => requireText(value, field, max).trim();

function entityAt(value: unknown, field: string): ExtractedEntity {
  const item = requireObject(value, field);
  const type = item.type;
  if (typeof type !== 'string' || !(ENTITY_TYPES as readonly string[]).includes(type))
    throw new AssistantInputError(`${field}.type`, `must be one of ${ENTITY_TYPES.join(', ')}`);
  const aliases =
    item.aliases === undefined ? [] : requireList(item.aliases, `${field}.aliases`, EXTRACTION_LIMITS.aliases);
  return {
    name: text(item.name, `${field}.name`, 200),
    type: type as EntityType,
    aliases: aliases.map((alias, i) => text(alias, `${field}.aliases[${i}]`, 200)),
  };
}

function relationAt(value: unknown, field: string): ExtractedRelation {
  const item = requireObject(value, field);
  return {
    from: text(item.from, `${field}.from`, 200),
    relation: text(item.relation, `${field}.relation`, 60),
    to: text(item.to, `${field}.to`, 200),
    evidence: text(item.evidence, `${field}.evidence`, 2000),
  };
}

function factAt(value: unknown, field: string): ExtractedFact {
  const item = requireObject(value, field);
  const subject =
    item.subject === undefined || item.subject === null ? undefined : text(item.subject, `${field}.subject`, 200);
  return {
    text: text(item.text, `${field}.text`, 2000),
    ...(subject ? { subject } : {}),
    evidence: text(item.evidence, `${field}.evidence`, 2000),
  };
}

/** Checks an extraction (a parsed object, or its JSON text); the first problem is thrown, naming its field. */
export function validateExtraction(input: unknown, field = 'extraction'): Extraction {
  let value = input;
  if (typeof input === 'string') {
    try {
      value = JSON.parse(input);
    } catch {
      throw new AssistantInputError(field, 'must be JSON');
    }
  }
  const root = requireObject(value, field);
  const list = (key: keyof typeof EXTRACTION_LIMITS) => requireList(root[key], key, EXTRACTION_LIMITS[key]);
  return {
    entities: list('entities').map((item, i) => entityAt(item, `entities[${i}]`)),
    relations: list('relations').map((item, i) => relationAt(item, `relations[${i}]`)),
    facts: list('facts').map((item, i) => factAt(item, `facts[${i}]`)),
  };
}
