// The context reads the knowledge graph, on a real Postgres 17: after the accountant changed, "who is my accountant?"
// holds Anna as the current accountant and not Stefan; named people and things come with their summary and current
// relations, by name or alias as whole words, within the character budget; the system prompt stays the same.
import { describe, expect, it } from 'vitest';
import * as assistant from '../../src';
import { nameRuns, relationWords } from '../../src/context/graph-context';
import { useAssistantDatabase } from '../database';
import { createUser } from '../helpers';
import { accountantExtractions } from '../graph/accountant-extractions';

const db = useAssistantDatabase();

const newUser = (name: string) => createUser(db.pool, name);
const feb = new Date('2027-02-10T09:00:00Z');
const feb2 = new Date('2027-02-11T09:00:00Z');
const later = new Date('2027-02-12T09:00:00Z');

async function accountantUser(name: string): Promise<string> {
  const userId = await newUser(name);
  await assistant.applyExtraction(db.pool, userId, accountantExtractions.first, { now: feb });
  await assistant.applyExtraction(db.pool, userId, accountantExtractions.second, { now: feb2 });
  return userId;
}

const load = (userId: string, message: string, extra: Record<string, unknown> = {}) =>
  assistant.loadContext(db.pool, userId, { sessionId: 'chat', message, now: later, ...extra });

describe('context reads the graph', () => {
  it('answers "who is my accountant?" with Anna current, not Stefan', async () => {
    const userId = await accountantUser('who-accountant');
    const context = await load(userId, 'who is my accountant?');
    expect(context.graph).toEqual(['- the user:', '  - Anna Berger accountant of the user (since 2027-02-11)']);
    expect(context.contextBlock).toContain('Anna Berger accountant of the user');
    expect(context.contextBlock).not.toContain('Stefan Huber accountant of the user');
    // the old fact is superseded: recall gives only the correction
    expect(context.memories.map((m) => m.content)).toEqual([accountantExtractions.second.facts[0].text]);
    expect(context.userPrompt.startsWith(context.contextBlock)).toBe(true);
    expect(context.systemPrompt).not.toContain('Anna');
  });

  it('gives named people and things by name or alias, whole words, with their current relations', async () => {
    const userId = await accountantUser('named');
    await assistant.upsertEntity(db.pool, userId, { name: 'Huber & Partner', summary: 'Tax office in Graz' });
    const context = await load(userId, "What do you know about stefan? And Anna Berger's office?");
    expect(context.graph).toEqual([
      '- Stefan Huber (person; also called Stefan)',
      '  - Stefan Huber works at Huber & Partner (since 2027-02-10)',
      '- Anna Berger (person)',
      '  - Anna Berger accountant of the user (since 2027-02-11)',
    ]);
    const company = await load(userId, 'Call huber & partner tomorrow');
    expect(company.graph[0]).toBe('- Huber & Partner (company): Tax office in Graz');
    // not a whole word: nothing
    expect((await load(userId, 'Stefanie and Annabel say hi')).graph).toEqual([]);
  });

  it('stays within the character budget, and the system prompt stays byte-identical', async () => {
    const userId = await accountantUser('budget');
    const full = await load(userId, 'Stefan, Anna Berger and my accountant');
    const cut = await load(userId, 'Stefan, Anna Berger and my accountant', { graphChars: 60 });
    expect(full.graph.length).toBeGreaterThan(1);
    expect(cut.graph).toEqual(full.graph.slice(0, 1));
    expect(cut.graph.join('\n').length).toBeLessThanOrEqual(60);
    expect((await load(userId, 'Stefan', { graphChars: 0 })).graph).toEqual([]);
    const plain = await load(await newUser('no-graph'), 'who is my accountant?');
    expect(plain.graph).toEqual([]);
    expect(full.systemPrompt).toBe(plain.systemPrompt);
    expect(plain.contextBlock).not.toContain('knowledge graph');
  });

  it('finds names as word runs and relation types by their words', () => {
    expect(nameRuns("Anna's number, Huber & Partner.", 3)).toEqual([
      'anna',
      'anna number',
      'anna number huber',
      'number',
      'number huber',
      'number huber &',
      'huber',
      'huber &',
      'huber & partner',
      '&',
      '& partner',
      'partner',
    ]);
    expect(relationWords('accountant_of')).toEqual(['accountant']);
    expect(relationWords('works_at')).toEqual(['works']);
  });
});
