// Assistant Memory v1's router: an unknown operation is refused before the database is touched, and every
// operation of the selector has its module. Each one is run through the router in operations.test.ts.
import { NodeOperationError } from 'n8n-workflow';
import { describe, expect, it } from 'vitest';

import { AssistantMemory } from '../../../nodes/AssistantMemory/AssistantMemory.node';
import { operations, router } from '../../../nodes/AssistantMemory/v1/actions/router';
import { executeFunctions, nodeVersion } from '../helpers/executeFunctions';

const memory = nodeVersion(new AssistantMemory());

describe('Assistant Memory v1 router', () => {
  it('refuses an unknown operation with a NodeOperationError, before reading any credential', async () => {
    const nodeCredentials = { assistantEmbeddingsApi: { id: '1', name: 'Embeddings' } };
    const context = executeFunctions(memory, { parameters: { operation: 'dream' }, nodeCredentials });
    const error = await router.call(context).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NodeOperationError);
    expect((error as Error).message).toBe('Operation "dream" is not supported');
    expect(context.credentialReads).toEqual([]);
  });

  it('has a module for every operation of the selector, and nothing else', () => {
    const selector = memory.description.properties.find((property) => property.name === 'operation')!;
    const values = (selector.options as { value: string }[]).map((option) => option.value);
    expect(values).toEqual([
      'captureMemories',
      'consolidateMemories',
      'consolidationReport',
      'forget',
      'get',
      'listKept',
      'pinMemory',
      'recall',
      'recent',
      'remember',
      'restoreMemory',
      'update',
    ]);
    expect(Object.keys(operations).sort()).toEqual([...values].sort());
  });
});
