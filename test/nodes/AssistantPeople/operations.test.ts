// The Assistant People node on a real Postgres 17, through the shared fake IExecuteFunctions: the owner issues a code,
// lists and removes people, sets a channel's DM policy; anyone else is refused, naming the field; a yes/no given as
// anything but true/false/empty is an error naming it.
import { NodeOperationError } from 'n8n-workflow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admit, getDmPolicy, updateInstanceSettings } from 'assistant-core';

import { AssistantPeople } from '../../../nodes/AssistantPeople/AssistantPeople.node';
import { nodeVersion, runNode, type Parameters } from '../helpers/executeFunctions';
import { startNodeDatabase, type NodeDatabase } from '../helpers/postgres';

let db: NodeDatabase;
let owner: string;
const now = '2026-11-29T10:00:00.000Z';

beforeAll(async () => {
  db = await startNodeDatabase({ migrated: true });
  await updateInstanceSettings(db.pool, { ownerTelegramChatId: '100' });
  owner = (
    (await admit(db.pool, { channel: 'telegram', externalId: '100', text: '', now: new Date(now) })) as {
      userId: string;
    }
  ).userId;
});
afterAll(async () => db?.stop());

async function run(parameters: Parameters, options: { continueOnFail?: boolean } = {}) {
  const [output] = await runNode(new AssistantPeople(), {
    parameters,
    credentials: { postgres: db.credential },
    ...options,
  });
  return output;
}

describe('Assistant People', () => {
  it('is a tool on the postgres credential, every operation with an action', () => {
    const { description } = nodeVersion(new AssistantPeople());
    expect(description.usableAsTool).toBe(true);
    expect(description.credentials).toEqual([{ name: 'postgres', required: true }]);
    const operation = description.properties.find((p) => p.name === 'operation')!;
    expect((operation.options as { value: string }[]).map((o) => o.value)).toEqual([
      'issuePairingCode',
      'listPeople',
      'removePerson',
      'setDmPolicy',
    ]);
  });

  it('pairs, lists and removes a person for the owner', async () => {
    expect(
      (await run({ operation: 'setDmPolicy', userId: owner, channel: 'telegram', policy: 'pairing', allow: '' }))[0]
        .json,
    ).toMatchObject({ result: 'telegram: pairing', policy: 'pairing' });
    const [issued] = await run({
      operation: 'issuePairingCode',
      userId: owner,
      personName: 'Ana',
      forSelf: '',
      minutes: '',
      now,
    });
    expect(issued.json.result).toMatch(/^Pairing code [A-Z2-9]{4}-[A-Z2-9]{4} \(lets Ana in as a new person\)/);
    expect(issued.json.expiresAt).toBe('2026-11-29T10:15:00.000Z');
    const paired = await admit(db.pool, {
      channel: 'telegram',
      externalId: '201',
      text: String(issued.json.code),
      now: new Date(now),
    });
    expect(paired.kind).toBe('pairing-reply');
    const [listed] = await run({ operation: 'listPeople', userId: owner });
    expect(listed.json.people).toEqual([expect.objectContaining({ name: 'Ana', identities: ['telegram:201'] })]);
    expect(listed.json.dmPolicies).toMatchObject({ telegram: { policy: 'pairing' }, api: { policy: 'open' } });
    const [removed] = await run({ operation: 'removePerson', userId: owner, person: 'Ana', purge: 'false', now });
    expect(removed.json).toMatchObject({
      result: 'Ana was removed and can no longer talk to the assistant; their data is kept.',
      purged: false,
    });
    expect((await run({ operation: 'listPeople', userId: owner }))[0].json.people).toEqual([]);
  });

  it('refuses anyone but the owner, naming the field', async () => {
    const { code } = (
      await run({ operation: 'issuePairingCode', userId: owner, personName: 'Ben', forSelf: '', minutes: '5', now })
    )[0].json as { code: string };
    const ben = (
      (await admit(db.pool, { channel: 'telegram', externalId: '202', text: code, now: new Date(now) })) as {
        pairedUserId: string;
      }
    ).pairedUserId;
    for (const parameters of [
      { operation: 'listPeople', userId: ben },
      { operation: 'setDmPolicy', userId: ben, channel: 'telegram', policy: 'owner', allow: '' },
      { operation: 'removePerson', userId: ben, person: 'Ben', purge: '', now },
      { operation: 'issuePairingCode', userId: ben, personName: 'Mallory', forSelf: '', minutes: '', now },
    ]) {
      const [failed] = await run(parameters, { continueOnFail: true });
      expect(failed.json.field, parameters.operation).toMatch(/^(userId|callerUserId|forSelf)$/);
    }
    expect((await getDmPolicy(db.pool, 'telegram')).policy).toBe('pairing');
    // A person may issue a code for themselves (another channel of theirs).
    const [own] = await run({
      operation: 'issuePairingCode',
      userId: ben,
      personName: '',
      forSelf: 'true',
      minutes: '',
      now,
    });
    expect(own.json.result).toContain('pairs another channel to you');
  });

  it('names a bad yes/no, and fails the item without continueOnFail', async () => {
    const [failed] = await run(
      { operation: 'removePerson', userId: owner, person: 'Ben', purge: 'maybe', now },
      { continueOnFail: true },
    );
    expect(failed.json).toEqual({ error: 'purge: must be true, false or empty', field: 'purge' });
    const error = await run({ operation: 'listPeople', userId: 'nobody' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NodeOperationError);
  });
});
