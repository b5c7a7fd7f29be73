import type { IExecuteFunctions } from 'n8n-workflow';
import { beforeEach, describe, expect, it } from 'vitest';

import {
  CREDENTIAL_CACHE_TTL_MS,
  clearCredentialCache,
  getCachedCredentials,
} from '../../../nodes/Judge/v1/helpers/credentialCache';

/** A context whose getCredentials counts its reads and answers what `store` holds now. */
function context(workflowId: string, credentialId: string | undefined, store: { key: string; fail?: boolean }, reads: string[]) {
  return {
    getNode: () => ({ credentials: credentialId ? { systemOneApi: { id: credentialId, name: 'n' } } : undefined }),
    getWorkflow: () => ({ id: workflowId }),
    getCredentials: async (type: string) => {
      reads.push(`${workflowId}/${type}`);
      if (store.fail) throw new Error('credential not found');
      return { apiKey: store.key };
    },
  } as unknown as IExecuteFunctions;
}

describe('getCachedCredentials', () => {
  beforeEach(() => clearCredentialCache());

  it('reuses a read for the TTL, shares concurrent reads, then reads again', async () => {
    const store = { key: 'first' };
    const reads: string[] = [];
    const ctx = context('wf1', 'cred1', store, reads);
    const [a, b] = await Promise.all([getCachedCredentials(ctx, 'systemOneApi', 0), getCachedCredentials(ctx, 'systemOneApi', 1)]);
    expect([a, b]).toEqual([{ apiKey: 'first' }, { apiKey: 'first' }]);
    expect(reads).toHaveLength(1);
    store.key = 'rotated';
    expect(await getCachedCredentials(ctx, 'systemOneApi', CREDENTIAL_CACHE_TTL_MS - 1)).toEqual({ apiKey: 'first' });
    expect(await getCachedCredentials(ctx, 'systemOneApi', CREDENTIAL_CACHE_TTL_MS)).toEqual({ apiKey: 'rotated' });
    expect(reads).toHaveLength(2);
  });

  it('keeps workflows apart and never caches a credential without an id', async () => {
    const store = { key: 'k' };
    const reads: string[] = [];
    await getCachedCredentials(context('wf1', 'cred1', store, reads), 'systemOneApi', 0);
    await getCachedCredentials(context('wf2', 'cred1', store, reads), 'systemOneApi', 0);
    await getCachedCredentials(context('wf3', undefined, store, reads), 'systemOneApi', 0);
    await getCachedCredentials(context('wf3', undefined, store, reads), 'systemOneApi', 0);
    expect(reads).toEqual(['wf1/systemOneApi', 'wf2/systemOneApi', 'wf3/systemOneApi', 'wf3/systemOneApi']);
  });

  it('does not keep a failed read', async () => {
    const store = { key: 'k', fail: true };
    const reads: string[] = [];
    const ctx = context('wf1', 'cred1', store, reads);
    await expect(getCachedCredentials(ctx, 'systemOneApi', 0)).rejects.toThrow('credential not found');
    store.fail = false;
    expect(await getCachedCredentials(ctx, 'systemOneApi', 1)).toEqual({ apiKey: 'k' });
    expect(reads).toHaveLength(2);
  });
});
