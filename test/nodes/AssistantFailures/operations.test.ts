// The Assistant Failures node on a fresh Postgres 17: a failed execution as the Error Trigger describes it is
// recorded (secrets scrubbed), and listed in plain words for the user.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveIdentity } from 'assistant-core';

import { AssistantFailures } from '../../../nodes/AssistantFailures/AssistantFailures.node';
import { runNode, type Parameters } from '../helpers/executeFunctions';
import { startNodeDatabase, type NodeDatabase } from '../helpers/postgres';

let db: NodeDatabase;
let userId: string;

beforeAll(async () => {
  db = await startNodeDatabase({ migrated: true });
  userId = (await resolveIdentity(db.pool, 'api', 'failures-node')).userId;
});
afterAll(async () => db?.stop());

async function run(parameters: Parameters[]) {
  const [output] = await runNode(new AssistantFailures(), { parameters, credentials: { postgres: db.credential } });
  return output.map((item) => item.json);
}

describe('Assistant Failures operations', () => {
  it('records a failed execution and lists it', async () => {
    const [recorded] = await run([
      {
        operation: 'recordFailure',
        workflow: 'Assistant: heartbeat',
        node: 'Phrase Nudge',
        message: 'Request failed: 401 api_key=supersecretvalue123',
        executionId: '42',
      },
    ]);
    expect(recorded.failureId).toEqual(expect.any(Number));
    const [listed] = await run([{ operation: 'listFailures', userId, since: '' }]);
    expect(listed.count).toBe(1);
    expect(listed.summary).toContain('workflow "Assistant: heartbeat", node "Phrase Nudge": Request failed: 401');
    expect(listed.summary).not.toContain('supersecretvalue123');
  });
});
