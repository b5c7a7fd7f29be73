// Assistant Context v1's router: an unknown operation is refused before the database is touched, and every
// operation of the selector has its module. Each one is run through the router in operations.test.ts.
import { NodeOperationError } from 'n8n-workflow';
import { describe, expect, it } from 'vitest';

import { AssistantContext } from '../../../nodes/AssistantContext/AssistantContext.node';
import { operations, router } from '../../../nodes/AssistantContext/v1/actions/router';
import { executeFunctions, nodeVersion } from '../helpers/executeFunctions';

const contextNode = nodeVersion(new AssistantContext());

describe('Assistant Context v1 router', () => {
  it('refuses an unknown operation with a NodeOperationError, before reading the credential', async () => {
    const context = executeFunctions(contextNode, { parameters: { operation: 'forgetAll' }, credentials: {} });
    const error = await router.call(context).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NodeOperationError);
    expect((error as Error).message).toBe('Operation "forgetAll" is not supported');
    expect(context.credentialReads).toEqual([]);
  });

  it('has a module for every operation of the selector, and nothing else', () => {
    const selector = contextNode.description.properties.find((property) => property.name === 'operation')!;
    const values = (selector.options as { value: string }[]).map((option) => option.value);
    expect(values).toEqual([
      'checkTelegramChat',
      'forgetEverything',
      'forgetQuestion',
      'getInstanceSettings',
      'getSettings',
      'linkIdentity',
      'loadContext',
      'purgeExecutions',
      'resolveIdentity',
      'spendingReport',
      'storeTurn',
      'updateInstanceSettings',
      'updateSettings',
    ]);
    expect(Object.keys(operations).sort()).toEqual([...values].sort());
  });
});
