// Judge v1's router: each mode is reached, an unknown one is refused before anything is read.
import { NodeOperationError } from 'n8n-workflow';
import { describe, expect, it } from 'vitest';

import { Judge } from '../../../nodes/Judge/Judge.node';
import { modes, router } from '../../../nodes/Judge/v1/actions/router';
import { executeFunctions, nodeVersion } from '../helpers/executeFunctions';

const judge = nodeVersion(new Judge());
const credentials = {
  systemOneApi: { baseUrl: 'http://127.0.0.1:9', apiKey: 'judge-key' },
  systemOneInboundKeyApi: { apiKey: 'wrapper-key' },
};
const modeSelector = () => judge.description.properties.find((property) => property.name === 'mode')!;

describe('Judge v1 router', () => {
  it('refuses an unknown mode with a NodeOperationError, reading no credential', async () => {
    const context = executeFunctions(judge, { parameters: { mode: 'summarise' }, credentials });
    const error = await router.call(context).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NodeOperationError);
    expect((error as Error).message).toBe('Mode "summarise" is not supported');
    expect(context.credentialReads).toEqual([]);
  });

  it('reaches both modes, "judge" being the default', async () => {
    const values = (modeSelector().options as { value: string }[]).map((option) => option.value);
    expect(values).toEqual(['judge', 'passThrough']);
    expect(Object.keys(modes)).toEqual(values);
    // Judge Items: a bad state fails the item before any request (no server needed).
    for (const parameters of [
      { model: 'm', state: '' },
      { mode: 'judge', model: 'm', state: '' },
    ]) {
      const [out] = await router.call(executeFunctions(judge, { parameters, credentials, continueOnFail: true }));
      expect(out[0].json).toMatchObject({ field: 'State' });
    }
    // Pass Through: a request without a key is refused with 403 before any request.
    const items = [{ json: { headers: {}, body: {} } }];
    const context = executeFunctions(judge, { parameters: { mode: 'passThrough' }, items, credentials });
    const [success, failure] = await router.call(context);
    expect(success).toEqual([]);
    expect(failure[0].json).toMatchObject({ statusCode: 403 });
  });
});
