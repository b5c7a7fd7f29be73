// Assistant Tool Builder's Check Agent Tool Call, the first step of every router workflow (issue 41, part 2), through
// the shared fake IExecuteFunctions without any credential (it needs no database): a good call comes out checked and
// complete; a bad action or argument fails its item naming the action and the field, as {error, field} with Continue
// On Fail (the router's error output answers the model with it) and as a NodeOperationError without.
import { NodeOperationError } from 'n8n-workflow';
import { describe, expect, it } from 'vitest';

import { AssistantToolBuilder } from '../../../nodes/AssistantToolBuilder/AssistantToolBuilder.node';
import { runNode, type Parameters } from '../helpers/executeFunctions';

const call = (group: string, action: unknown, args: unknown): Parameters => ({
  operation: 'checkAgentCall',
  group,
  action,
  args,
});

async function run(parameters: Parameters[], continueOnFail = true) {
  const [output] = await runNode(new AssistantToolBuilder(), { parameters, credentials: {}, continueOnFail });
  return output;
}

describe('Assistant Tool Builder: Check Agent Tool Call', () => {
  it('passes good calls on checked, each item paired, without reading a credential', async () => {
    const output = await run([
      call('tasks and reminders', 'create_task', { title: 'Call Eva', due: 'tomorrow', priority: 'high' }),
      call('memory and people', 'forget_memory', { memory_id: '7' }),
    ]);
    expect(output.map((item) => item.json)).toEqual([
      { action: 'create_task', args: { title: 'Call Eva', due: 'tomorrow', priority: 'high' } },
      { action: 'forget_memory', args: { memory_id: 7 } },
    ]);
    expect(output.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
  });

  it('fails a bad action and a bad field per item with Continue On Fail, naming them', async () => {
    const output = await run([
      call('web', 'browser_open', { url: 'https://example.org' }),
      call('tasks and reminders', 'complete_task', {}),
      call('web', 'web_search', { query: 'bees' }),
    ]);
    expect(output[0].json).toEqual({
      field: 'action',
      error: 'action: web has no action "browser_open"; its actions are web_search, read_page',
    });
    expect(output[1].json).toEqual({
      field: 'args.task_id',
      error: 'complete_task: args.task_id: is required; complete_task takes task_id (number: The task id)',
    });
    // The failed items carry the error, so the router's "Continue (using error output)" routes them there.
    expect(output[0].error).toBeInstanceOf(NodeOperationError);
    expect(output[2].json).toEqual({ action: 'web_search', args: { query: 'bees', max_results: '' } });
  });

  it('throws without Continue On Fail, naming the field', async () => {
    const failure = run([call('checks', 'pause_check', { check_id: 3, resume: true, force: 1 })], false);
    await expect(failure).rejects.toThrow(NodeOperationError);
    await expect(failure).rejects.toThrow(/^pause_check: args\.force: is not an argument of pause_check/);
  });
});
