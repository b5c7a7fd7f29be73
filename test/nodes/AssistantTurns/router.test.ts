// Assistant Turns v1's router: an unknown operation is refused before the database is touched, and every operation
// of the selector has its module. Each one is run through the router in operations.test.ts.
import { NodeOperationError } from 'n8n-workflow';
import { describe, expect, it } from 'vitest';

import { AssistantTurns } from '../../../nodes/AssistantTurns/AssistantTurns.node';
import { operations, router } from '../../../nodes/AssistantTurns/v1/actions/router';
import { executeFunctions, nodeVersion } from '../helpers/executeFunctions';

const turnsNode = nodeVersion(new AssistantTurns());

describe('Assistant Turns v1 router', () => {
  it('refuses an unknown operation with a NodeOperationError, before reading the credential', async () => {
    const context = executeFunctions(turnsNode, { parameters: { operation: 'replay' }, credentials: {} });
    const error = await router.call(context).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NodeOperationError);
    expect((error as Error).message).toBe('Operation "replay" is not supported');
    expect(context.credentialReads).toEqual([]);
  });

  it('has a module for every operation of the selector, and nothing else', () => {
    const selector = turnsNode.description.properties.find((property) => property.name === 'operation')!;
    const values = (selector.options as { value: string }[]).map((option) => option.value);
    expect(values.sort()).toEqual(Object.keys(operations).sort());
  });
});
