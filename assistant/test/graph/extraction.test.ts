// The extraction shape, checked in code: every error names its field.
import { describe, expect, it } from 'vitest';
import * as assistant from '../../src';

const valid = {
  entities: [{ name: ' Stefan Huber ', type: 'person', aliases: ['Stefan'] }],
  relations: [{ from: 'Stefan Huber', relation: 'accountant_of', to: 'the user', evidence: 'is my accountant' }],
  facts: [{ text: 'Stefan Huber is my accountant', evidence: 'Stefan Huber … is my accountant' }],
};

function fieldOf(input: unknown): string | undefined {
  try {
    assistant.validateExtraction(input);
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(assistant.AssistantInputError);
    return (error as assistant.AssistantInputError).field;
  }
}

describe('extraction shape', () => {
  it('accepts a valid extraction, as an object or JSON text', () => {
    const checked = assistant.validateExtraction(valid);
    expect(checked.entities).toEqual([{ name: 'Stefan Huber', type: 'person', aliases: ['Stefan'] }]);
    expect(assistant.validateExtraction(JSON.stringify(valid))).toEqual(checked);
    expect(assistant.validateExtraction({ entities: [], relations: [], facts: [] })).toEqual({
      entities: [],
      relations: [],
      facts: [],
    });
    expect(
      assistant.validateExtraction({ ...valid, facts: [{ text: 'x', subject: 'my x', evidence: 'x' }] }).facts,
    ).toEqual([{ text: 'x', subject: 'my x', evidence: 'x' }]);
  });

  it('names the field of the first problem', () => {
    const cases: Array<[unknown, string]> = [
      ['{not json', 'extraction'],
      [[], 'extraction'],
      [{ relations: [], facts: [] }, 'entities'],
      [{ ...valid, facts: 'none' }, 'facts'],
      [{ ...valid, entities: [{ name: 'A', type: 'alien' }] }, 'entities[0].type'],
      [{ ...valid, entities: [valid.entities[0], { name: ' ', type: 'person' }] }, 'entities[1].name'],
      [{ ...valid, entities: [{ name: 'A', type: 'person', aliases: [''] }] }, 'entities[0].aliases[0]'],
      [{ ...valid, relations: [{ ...valid.relations[0], evidence: undefined }] }, 'relations[0].evidence'],
      [{ ...valid, relations: [null] }, 'relations[0]'],
      [{ ...valid, facts: [{ text: 'x', evidence: 'x', subject: 5 }] }, 'facts[0].subject'],
      [{ ...valid, facts: [{ evidence: 'x' }] }, 'facts[0].text'],
      [{ ...valid, facts: Array.from({ length: 31 }, () => valid.facts[0]) }, 'facts'],
    ];
    for (const [input, field] of cases) expect(fieldOf(input), JSON.stringify(input).slice(0, 80)).toBe(field);
  });

  it('publishes the JSON schema the capture asks for', () => {
    expect(assistant.EXTRACTION_SCHEMA.required).toEqual(['entities', 'relations', 'facts']);
    expect(assistant.EXTRACTION_SCHEMA.properties.entities.items.properties.type.enum).toEqual([
      ...assistant.ENTITY_TYPES,
    ]);
  });
});
