// Assistant Knowledge Graph v1's router: an unknown operation is refused before the database is touched, and every
// operation of the selector has its module. Each one is run through the router in operations.test.ts.
import { NodeOperationError } from 'n8n-workflow';
import { describe, expect, it } from 'vitest';

import { AssistantKnowledgeGraph } from '../../../nodes/AssistantKnowledgeGraph/AssistantKnowledgeGraph.node';
import { operations, router } from '../../../nodes/AssistantKnowledgeGraph/v1/actions/router';
import { executeFunctions, nodeVersion } from '../helpers/executeFunctions';

const graph = nodeVersion(new AssistantKnowledgeGraph());

describe('Assistant Knowledge Graph v1 router', () => {
  it('refuses an unknown operation with a NodeOperationError, before reading the credential', async () => {
    const context = executeFunctions(graph, { parameters: { operation: 'merge' }, credentials: {} });
    const error = await router.call(context).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NodeOperationError);
    expect((error as Error).message).toBe('Operation "merge" is not supported');
    expect(context.credentialReads).toEqual([]);
  });

  it('has a module for every operation of the selector, and nothing else', () => {
    const selector = graph.description.properties.find((property) => property.name === 'operation')!;
    const values = (selector.options as { value: string }[]).map((option) => option.value);
    expect(values).toEqual(['endRelation', 'query', 'relate', 'upsertEntity']);
    expect(Object.keys(operations).sort()).toEqual([...values].sort());
  });
});
