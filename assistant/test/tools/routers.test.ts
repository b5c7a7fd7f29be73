// The router tools (issue 41, part 2): each group's description lists every action with its argument names, and
// checkToolCall lets a good call through converted and complete, and names the action and the field of a bad one.
import { describe, expect, it } from 'vitest';
import { FieldError } from '../../src/errors';
import { TOOL_CALLS } from '../../src/tools/arguments';
import { TOOL_GROUPS, TOOL_REGISTRY } from '../../src/tools/registry';
import { checkToolCall, routerDescription, routerOf, TOOL_ROUTERS } from '../../src/tools/routers';

/** The error checkToolCall throws for a call, as {field, message}. */
function refusal(group: Parameters<typeof checkToolCall>[0], action: unknown, args: unknown) {
  try {
    checkToolCall(group, action, args);
  } catch (error) {
    expect(error).toBeInstanceOf(FieldError);
    return { field: (error as FieldError).field, message: (error as Error).message };
  }
  throw new Error('the call was not refused');
}

describe('the routers', () => {
  it('are one per group, with distinct names and workflows', () => {
    const routers = TOOL_GROUPS.map((group) => TOOL_ROUTERS[group]);
    expect(new Set(routers.map((router) => router.name)).size).toBe(TOOL_GROUPS.length);
    expect(new Set(routers.map((router) => router.workflow.id)).size).toBe(TOOL_GROUPS.length);
    for (const router of routers) expect(router.workflow.id).toMatch(/^[A-Za-z0-9]{16}$/);
  });

  it("list every action of the group with its arguments, optional ones marked, in the router's description", () => {
    for (const tool of TOOL_REGISTRY) {
      const args = TOOL_CALLS[tool.name].arguments.map((arg) => `${arg.name}${arg.required ? '' : '?'}`);
      expect(routerDescription(tool.group)).toContain(`\n${tool.name}(${args.join(', ')}): ${tool.summary}`);
    }
    expect(routerDescription('web').split('\n')).toEqual([
      `${TOOL_ROUTERS.web.intro} Actions and their args (? optional):`,
      'web_search(query, max_results?): search the web (docs/WEB.md)',
      'read_page(url, max_chars?): read a web page or PDF as clean text',
    ]);
  });

  it('finds the router of every registry tool, and none for another name', () => {
    for (const tool of TOOL_REGISTRY) expect(routerOf(tool.name)?.router).toBe(TOOL_ROUTERS[tool.group]);
    expect(routerOf('send_email')).toBeUndefined();
  });
});

describe('checkToolCall', () => {
  it('passes a good call on, numbers from text converted and missing optional arguments empty', () => {
    expect(
      checkToolCall('memory and people', 'update_memory', { memory_id: '12', content: 'Eva lives in Graz.' }),
    ).toEqual({ action: 'update_memory', args: { memory_id: 12, content: 'Eva lives in Graz.' } });
    expect(checkToolCall('memory and people', 'memory_panel', { action: 'list' })).toEqual({
      action: 'memory_panel',
      args: { action: 'list', about: '', memory_id: 0 },
    });
    expect(checkToolCall('web', 'web_search', '{"query": "bees", "max_results": 5}')).toEqual({
      action: 'web_search',
      args: { query: 'bees', max_results: '5' },
    });
  });

  it('takes no args (or empty ones) for an action without arguments', () => {
    for (const args of [undefined, null, '', {}]) {
      expect(checkToolCall('browser', 'browser_snapshot', args)).toEqual({ action: 'browser_snapshot', args: {} });
    }
  });

  it('passes a JSON argument given as an object on as its text (run_tool input, build_tool spec)', () => {
    expect(
      checkToolCall('experts and tool building', 'run_tool', { name: 'city_weather', input: { city: 'Graz' } }),
    ).toEqual({
      action: 'run_tool',
      args: { name: 'city_weather', input: '{"city":"Graz"}' },
    });
  });

  it("refuses an action of another group or none, listing the group's actions", () => {
    expect(refusal('web', 'create_task', {})).toEqual({
      field: 'action',
      message: 'action: web has no action "create_task"; its actions are web_search, read_page',
    });
    expect(refusal('web', undefined, {}).field).toBe('action');
  });

  it('refuses a missing required argument, naming the action, the field and what the action takes', () => {
    expect(refusal('tasks and reminders', 'create_task', { due: 'tomorrow', priority: 'low' })).toEqual({
      field: 'args.title',
      message: expect.stringMatching(
        /^create_task: args\.title: is required; create_task takes title \(string: The task title\);/,
      ),
    });
  });

  it('refuses an unknown argument and a number that is not one, naming each', () => {
    expect(refusal('memory and people', 'recall_memories', { query: 'Eva', limit: 3 })).toMatchObject({
      field: 'args.limit',
      message: expect.stringMatching(
        /^recall_memories: args\.limit: is not an argument of recall_memories; recall_memories takes query/,
      ),
    });
    expect(refusal('memory and people', 'forget_memory', { memory_id: 'the last one' })).toEqual({
      field: 'args.memory_id',
      message: 'forget_memory: args.memory_id: must be a number (The memory id), not "the last one"',
    });
  });

  it('refuses args that are not an object', () => {
    expect(refusal('memory and people', 'recall_memories', '[1, 2]')).toEqual({
      field: 'args',
      message: `recall_memories: args: must be a JSON object of recall_memories's arguments, not "[1, 2]"`,
    });
    expect(refusal('memory and people', 'recall_memories', 'query=Eva').field).toBe('args');
  });
});
