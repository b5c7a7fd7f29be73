import { beforeEach, describe, expect, it } from 'vitest';

import { Judge } from '../../../nodes/Judge/Judge.node';
import {
  CREDENTIAL_CACHE_TTL_MS,
  clearCredentialCache,
  getCachedCredentials,
} from '../../../nodes/Judge/v1/transport/credentialCache';
import { executeFunctions, nodeVersion } from '../helpers/executeFunctions';

const judge = nodeVersion(new Judge());

/** A context whose credential reads answer what `store` holds now; `reads` lists them. */
function context(workflowId: string, credentialId: string | undefined, store: { key: string; fail?: boolean }) {
  return executeFunctions(judge, {
    workflowId,
    nodeCredentials: credentialId ? { systemOneApi: { id: credentialId, name: 'n' } } : undefined,
    credentials: () => {
      if (store.fail) throw new Error('credential not found');
      return { apiKey: store.key };
    },
  });
}

describe('getCachedCredentials', () => {
  beforeEach(() => clearCredentialCache());

  it('reuses a read for the TTL, shares concurrent reads, then reads again', async () => {
    const store = { key: 'first' };
    const ctx = context('wf1', 'cred1', store);
    const [a, b] = await Promise.all([
      getCachedCredentials(ctx, 'systemOneApi', 0),
      getCachedCredentials(ctx, 'systemOneApi', 1),
    ]);
    expect([a, b]).toEqual([{ apiKey: 'first' }, { apiKey: 'first' }]);
    expect(ctx.credentialReads).toHaveLength(1);
    store.key = 'rotated';
    expect(await getCachedCredentials(ctx, 'systemOneApi', CREDENTIAL_CACHE_TTL_MS - 1)).toEqual({ apiKey: 'first' });
    expect(await getCachedCredentials(ctx, 'systemOneApi', CREDENTIAL_CACHE_TTL_MS)).toEqual({ apiKey: 'rotated' });
    expect(ctx.credentialReads).toHaveLength(2);
  });

  it('keeps workflows apart and never caches a credential without an id', async () => {
    const store = { key: 'k' };
    const contexts = [
      context('wf1', 'cred1', store),
      context('wf2', 'cred1', store),
      context('wf3', undefined, store),
      context('wf3', undefined, store),
    ];
    for (const ctx of contexts) await getCachedCredentials(ctx, 'systemOneApi', 0);
    expect(contexts.map((ctx) => ctx.credentialReads)).toEqual([
      ['systemOneApi'],
      ['systemOneApi'],
      ['systemOneApi'],
      ['systemOneApi'],
    ]);
    await getCachedCredentials(contexts[0], 'systemOneApi', 1);
    expect(contexts[0].credentialReads).toHaveLength(1);
  });

  it('does not keep a failed read', async () => {
    const store = { key: 'k', fail: true };
    const ctx = context('wf1', 'cred1', store);
    await expect(getCachedCredentials(ctx, 'systemOneApi', 0)).rejects.toThrow('credential not found');
    store.fail = false;
    expect(await getCachedCredentials(ctx, 'systemOneApi', 1)).toEqual({ apiKey: 'k' });
    expect(ctx.credentialReads).toHaveLength(2);
  });
});
