// Assistant Web v1's router: an unknown operation is refused before the settings are read, and every operation of
// the selector has its module. Each one is run through the router in operations.test.ts.
import { NodeOperationError } from 'n8n-workflow';
import { describe, expect, it } from 'vitest';

import { AssistantWeb } from '../../../nodes/AssistantWeb/AssistantWeb.node';
import { operations, router } from '../../../nodes/AssistantWeb/v1/actions/router';
import { executeFunctions, nodeVersion } from '../helpers/executeFunctions';

const web = nodeVersion(new AssistantWeb());

describe('Assistant Web v1 router', () => {
  it('refuses an unknown operation with a NodeOperationError', async () => {
    const context = executeFunctions(web, { parameters: { operation: 'crawl' } });
    const error = await router.call(context).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NodeOperationError);
    expect((error as Error).message).toBe('Operation "crawl" is not supported');
  });

  it('has a module for every operation of the selector, and nothing else', () => {
    const selector = web.description.properties.find((property) => property.name === 'operation')!;
    const values = (selector.options as { value: string }[]).map((option) => option.value);
    expect(values).toEqual(['checkUrl', 'readPage', 'search']);
    expect(Object.keys(operations).sort()).toEqual([...values].sort());
  });
});
