// The storage nodes' Postgres: n8n's postgres credential mapped to a pool, and a clear error when it is unusable.
import { NodeOperationError } from 'n8n-workflow';
import { afterAll, describe, expect, it } from 'vitest';
import { closeSharedPools, poolConfigFromCredential } from 'assistant-core';

import { AssistantTasks } from '../../../nodes/AssistantTasks/AssistantTasks.node';
import { assistantDatabase, POSTGRES_CREDENTIAL } from '../../../nodes/shared/transport/postgres';
import { executeFunctions, nodeVersion } from '../helpers/executeFunctions';

afterAll(async () => closeSharedPools());

describe('postgres credential', () => {
  it('maps n8n credential fields to a pg pool config, and refuses SSH tunnels', () => {
    const credential = {
      host: 'db',
      port: 6543,
      database: 'x',
      user: 'u',
      password: 'p',
      ssl: 'require',
      allowUnauthorizedCerts: true,
    };
    expect(poolConfigFromCredential(credential)).toMatchObject({
      host: 'db',
      port: 6543,
      ssl: { rejectUnauthorized: false },
    });
    expect(poolConfigFromCredential({ ssl: 'disable' }).ssl).toBe(false);
    expect(() => poolConfigFromCredential({ sshTunnel: true })).toThrow(/SSH tunnel/);
  });

  it('a database that cannot be reached is a NodeOperationError saying the schema could not be prepared', async () => {
    // Port 9 (discard) refuses the connection; n8n words ECONNREFUSED itself and keeps our message in `messages`.
    const unreachable = { host: '127.0.0.1', port: 9, database: 'x', user: 'u', password: 'p', ssl: 'disable' };
    const context = executeFunctions(nodeVersion(new AssistantTasks()), {
      credentials: { [POSTGRES_CREDENTIAL]: unreachable },
    });
    const error = await assistantDatabase(context).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NodeOperationError);
    expect((error as NodeOperationError).messages).toEqual([
      expect.stringMatching(/^Could not prepare the assistant schema: .*ECONNREFUSED/),
    ]);
  });
});
