// Embeddings on the real n8n + Postgres 17: with the Assistant Embeddings credential at the model gateway's embeddings
// route (the OpenAI fake behind it; the run keeps it off elsewhere), remember_memory stores the fact's embedding and
// the automatic recall before the next turn (Load Context) finds it by meaning where no word of the message can: a
// message of stop words only. With the credential off (no base URL, as an install without embeddings writes it), the
// same message recalls nothing and the turn still runs.
import { Pool } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveIdentity } from 'assistant-core';
import { OpenAiChatFakeControl, type ScriptStep } from '../fakes/openai-chat';
import { configureAssistantCredentials, postToAgent } from './setup/assistant';
import { setEmbeddingsCredential } from './setup/embeddings';
import { e2eStack, type E2EStack } from './setup/harness';
import { viaRouter } from './setup/tool-calls';

const run = Math.random().toString(36).slice(2, 8);
const user = `embeddings-${run}`;
// Only stop words: no lexeme and no name for recall by words to search by.
const FACT = 'To be or not to be';
let stack: E2EStack;
let llm: OpenAiChatFakeControl;
let db: Pool;

async function say(message: string, steps: ScriptStep[]): Promise<string> {
  await llm.addScript(message, steps);
  const answer = await postToAgent<{ reply?: string }>(stack, { message, user_id: user });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  const [request] = (await llm.requests(message)).slice(-1);
  return JSON.stringify(request.body.messages);
}

beforeAll(async () => {
  stack = e2eStack();
  llm = new OpenAiChatFakeControl(stack.fakeUrls.E2E_OPENAI_CHAT_URL);
  await configureAssistantCredentials(stack);
  db = new Pool({ connectionString: stack.postgresUrl, max: 2 });
  await setEmbeddingsCredential(stack, true);
});

afterAll(async () => {
  await setEmbeddingsCredential(stack, false).catch(() => undefined);
  await db?.end();
});

describe('embeddings on: recall by meaning before each turn', () => {
  it('stores the embedding with the fact, and the next turn recalls it where words find nothing', async () => {
    await say(`Remember this line [remember-${run}]`, [
      { tool_calls: [viaRouter('remember_memory', { content: FACT, people: '' })] },
      { content: 'Noted.' },
    ]);
    const { userId } = await resolveIdentity(db, 'api', user);
    const stored = await db.query(
      'SELECT id, cardinality(embedding) AS dimensions FROM assistant.memories WHERE user_id = $1 AND content = $2',
      [userId, FACT],
    );
    expect(stored.rows).toHaveLength(1);
    expect(stored.rows[0].dimensions).toBeGreaterThan(0);
    const id = stored.rows[0].id as string;

    const prompt = await say(FACT, [{ content: 'Hamlet.' }]);
    expect(prompt).toContain(`- [${id}] ${FACT}`);

    await setEmbeddingsCredential(stack, false);
    try {
      const withoutEmbeddings = await say(`${FACT} `, [{ content: 'Hamlet again.' }]);
      expect(withoutEmbeddings).not.toContain(`- [${id}] ${FACT}`);
      expect(withoutEmbeddings).toContain("The user's local time is");
    } finally {
      await setEmbeddingsCredential(stack, true);
    }
  });
});
