// The memory write gate on a real Postgres 17 (and the loopback OpenAI fake's /v1/embeddings): near-duplicates are
// dropped naming the memory they repeat, a correction supersedes (history kept, never recalled), a contradiction is
// kept and marked, and facts from outside content stay unconfirmed (not recalled) until the user confirms them.
import { describe, expect, it } from 'vitest';
import * as assistant from '../../src';
import { useAssistantDatabase } from '../database';
import { useFakeEmbeddings } from './fake-embedder';
import { createUser, expectFieldError } from '../helpers';

const KEY = 'sk-gate-test-key';
const db = useAssistantDatabase();
const embeddings = useFakeEmbeddings({ key: KEY, model: 'embed-small', dimensions: 64 });

const newUser = (name: string) => createUser(db.pool, name);
const now = new Date('2027-02-10T09:00:00Z');
const gate = (userId: string, content: string, options: assistant.GateOptions = {}, extra = {}) =>
  assistant.rememberThroughGate(db.pool, userId, { content, ...extra }, { now, ...options });
const contents = async (userId: string) =>
  (await assistant.recall(db.pool, userId, 'accountant Stefan Anna number', { limit: 20 })).map((m) => m.content);

describe('memory write gate', () => {
  it('drops a near-duplicate by words, naming the memory it repeats', async () => {
    const userId = await newUser('gate-dup');
    const first = await gate(userId, 'Stefan Huber is my accountant');
    expect(first).toMatchObject({ outcome: 'stored', superseded: [], embedding: { status: 'off' } });
    expect(first.memory.subjectKey).toBe('my accountant');
    const again = await gate(userId, 'my accountant is: STEFAN huber!');
    expect(again.outcome).toBe('duplicate');
    expect(again.memory.id).toBe(first.memory.id);
    expect(again.duplicateOf).toEqual({
      id: first.memory.id,
      content: 'Stefan Huber is my accountant',
      by: 'words',
      similarity: 1,
    });
    const count = await db.pool.query('SELECT count(*)::int AS n FROM assistant.memories WHERE user_id = $1', [userId]);
    expect(count.rows[0].n).toBe(1);
    // a different number is a different fact
    await gate(userId, 'The office code is 4711');
    expect((await gate(userId, 'The office code is 4712')).outcome).toBe('stored');
  });

  it('drops a near-duplicate by embedding when the words differ', async () => {
    const userId = await newUser('gate-embed');
    const stored = await gate(userId, 'Bike: a green Brompton', { embedder: embeddings.embedder });
    expect(stored.embedding).toEqual({ status: 'stored', model: 'embed-small', dimensions: 64 });
    // The fake embeds by hash; give the stored fact the vector of its paraphrase, as a semantic model would.
    const [paraphrase] = await embeddings.embedder.embed(['I ride a green Brompton bicycle']);
    await db.pool.query('UPDATE assistant.memories SET embedding = $2::real[] WHERE id = $1', [
      stored.memory.id,
      paraphrase,
    ]);
    const result = await gate(userId, 'I ride a green Brompton bicycle', { embedder: embeddings.embedder });
    expect(result.outcome).toBe('duplicate');
    expect(result.duplicateOf).toMatchObject({ id: stored.memory.id, by: 'embedding' });
    expect(result.duplicateOf!.similarity).toBeCloseTo(1, 3);
    // without the embedder the same words are a new fact
    expect((await gate(userId, 'I ride a green Brompton bicycle')).outcome).toBe('stored');
  });

  it('leaves facts of the same subject to the subject rule, however alike their embeddings', async () => {
    const userId = await newUser('gate-embed-subject');
    const old = await gate(userId, 'My accountant is Stefan Huber', { embedder: embeddings.embedder });
    const [alike] = await embeddings.embedder.embed(['My accountant is now Anna Berger']);
    await db.pool.query('UPDATE assistant.memories SET embedding = $2::real[] WHERE id = $1', [old.memory.id, alike]);
    const correction = await gate(userId, 'My accountant is now Anna Berger', { embedder: embeddings.embedder });
    expect(correction).toMatchObject({ outcome: 'stored', superseded: [{ id: old.memory.id }] });
  });

  it('supersedes on a correction of the same subject: kept as history, not recalled', async () => {
    const userId = await newUser('gate-correct');
    const old = await gate(userId, 'Stefan Huber from Huber & Partner is my accountant');
    const correction = await gate(userId, 'Anna Berger replaces Stefan as my accountant from March');
    expect(correction.outcome).toBe('stored');
    expect(correction.superseded.map((m) => m.id)).toEqual([old.memory.id]);
    expect(correction.superseded[0]).toMatchObject({
      supersededBy: correction.memory.id,
      supersededAt: now.toISOString(),
    });
    expect(await contents(userId)).toEqual(['Anna Berger replaces Stefan as my accountant from March']);
    expect((await assistant.recentMemories(db.pool, userId)).map((m) => m.id)).toEqual([correction.memory.id]);
    expect((await assistant.getMemory(db.pool, userId, old.memory.id)).supersededBy).toBe(correction.memory.id);
    // repeating the old fact now is no duplicate of history: it is stored, and marked as contradicting
    const back = await gate(userId, 'Stefan Huber is my accountant');
    expect(back).toMatchObject({ outcome: 'stored', contradicts: { id: correction.memory.id } });
  });

  it('keeps a contradiction beside the old fact, marked', async () => {
    const userId = await newUser('gate-contradict');
    const old = await gate(userId, 'My accountant is Stefan Huber');
    const other = await gate(userId, 'My accountant is Anna Berger');
    expect(other).toMatchObject({ outcome: 'stored', superseded: [], contradicts: { id: old.memory.id } });
    expect(other.memory.contradicts).toBe(old.memory.id);
    expect((await contents(userId)).sort()).toEqual(['My accountant is Anna Berger', 'My accountant is Stefan Huber']);
  });

  it('stores facts from outside content unconfirmed: not recalled, never replacing a confirmed fact', async () => {
    const userId = await newUser('gate-unconfirmed');
    const mine = await gate(userId, 'My accountant is Stefan Huber');
    const injected = await gate(userId, 'My accountant is now Mallory Evil', { confirmed: false }, { evidence: 'x' });
    expect(injected).toMatchObject({ outcome: 'stored', superseded: [], contradicts: { id: mine.memory.id } });
    expect(injected.memory).toMatchObject({ confirmed: false, evidence: 'x' });
    expect(await contents(userId)).toEqual(['My accountant is Stefan Huber']);
    const withUnconfirmed = await assistant.recall(db.pool, userId, 'accountant', { includeUnconfirmed: true });
    expect(withUnconfirmed.map((m) => [m.content, m.confirmed]).sort()).toEqual([
      ['My accountant is Stefan Huber', true],
      ['My accountant is now Mallory Evil', false],
    ]);
    // an unconfirmed repeat of a confirmed fact is a duplicate; the user's own repeat confirms the unconfirmed one
    expect((await gate(userId, 'my accountant is Stefan Huber', { confirmed: false })).outcome).toBe('duplicate');
    const held = await gate(userId, 'Anna keeps bees in Graz', { confirmed: false });
    const confirmedByRepeat = await gate(userId, 'Anna keeps bees in Graz.');
    expect(confirmedByRepeat).toMatchObject({ outcome: 'duplicate', memory: { id: held.memory.id, confirmed: true } });
    const confirmed = await assistant.confirmMemory(db.pool, userId, injected.memory.id);
    expect(confirmed.confirmed).toBe(true);
    expect(await contents(userId)).toContain('My accountant is now Mallory Evil');
    const stranger = await newUser('other');
    await expectFieldError(() => assistant.confirmMemory(db.pool, stranger, mine.memory.id), 'memoryId', 'notFound');
  });

  it('names the field of bad input', async () => {
    const userId = await newUser('gate-bad');
    await expectFieldError(() => gate(userId, '  '), 'content');
    await expectFieldError(() => gate(userId, 'x', {}, { evidence: 5 }), 'evidence');
    await expectFieldError(() => gate(userId, 'x', {}, { subject: ['a'] }), 'subject');
    await expectFieldError(() => gate('nope', 'x'), 'userId');
  });

  it('goes through the gate on the remember_memory path (rememberAndEmbed)', async () => {
    const userId = await newUser('gate-tool');
    const first = await assistant.rememberAndEmbed(
      db.pool,
      userId,
      { content: 'I live in Vienna' },
      embeddings.embedder,
    );
    const again = await assistant.rememberAndEmbed(
      db.pool,
      userId,
      { content: 'I live in Vienna!' },
      embeddings.embedder,
    );
    expect(again).toMatchObject({ outcome: 'duplicate', memory: { id: first.memory.id } });
  });
});
