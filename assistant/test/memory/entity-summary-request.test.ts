// The entity summary's chat request: the static system message first (a provider's prompt cache keeps it), the
// entity and its facts in the user message, and bad input refused naming the field.
import { describe, expect, it } from 'vitest';
import { AssistantInputError, ENTITY_SUMMARY_SYSTEM_PROMPT, entitySummaryRequest } from '../../src';

const fieldOf = (work: () => unknown) => {
  try {
    work();
  } catch (error) {
    expect(error).toBeInstanceOf(AssistantInputError);
    return (error as AssistantInputError).field;
  }
  throw new Error('expected an input error');
};

describe('entitySummaryRequest', () => {
  it('puts the static system message first and the entity with its facts after it', () => {
    const facts = ['2027-04-02: Anna Berger does my tax return', 'Anna Berger accountant of the user'];
    const request = entitySummaryRequest('Anna Berger', 'person', facts, { model: 'chat?job=consolidation' });
    expect(request).toEqual({
      model: 'chat?job=consolidation',
      temperature: 0,
      messages: [
        { role: 'system', content: ENTITY_SUMMARY_SYSTEM_PROMPT },
        {
          role: 'user',
          content: `The person "Anna Berger". What the notes and relations say:\n\n- ${facts[0]}\n- ${facts[1]}`,
        },
      ],
    });
    expect(ENTITY_SUMMARY_SYSTEM_PROMPT).toContain('Never add anything the notes do not say.');
    expect(ENTITY_SUMMARY_SYSTEM_PROMPT).toContain('at most 500 characters');
    // The same system message for every entity (only the user message differs).
    const other = entitySummaryRequest('Acme', 'company', ['Acme ships anvils'], { model: 'm' });
    expect(other.messages[0]).toEqual(request.messages[0]);
  });

  it('refuses bad input naming the field', () => {
    const facts = ['a fact'];
    expect(fieldOf(() => entitySummaryRequest('', 'person', facts, { model: 'm' }))).toBe('name');
    expect(fieldOf(() => entitySummaryRequest('Anna', 'alien', facts, { model: 'm' }))).toBe('type');
    expect(fieldOf(() => entitySummaryRequest('Anna', undefined, facts, { model: 'm' }))).toBe('type');
    expect(fieldOf(() => entitySummaryRequest('Anna', 'person', [], { model: 'm' }))).toBe('facts');
    expect(fieldOf(() => entitySummaryRequest('Anna', 'person', 'a fact', { model: 'm' }))).toBe('facts');
    expect(fieldOf(() => entitySummaryRequest('Anna', 'person', ['ok', 3], { model: 'm' }))).toBe('facts[1]');
    expect(fieldOf(() => entitySummaryRequest('Anna', 'person', facts, { model: '' }))).toBe('model');
  });
});
