// The main agent's router tools (issue 41, part 2), as JSON: the agent binds one router tool per registry group and
// nothing else; every registry tool is reached through exactly one router, with its checked arguments and the turn's
// fields it had before all mapped; a bad call is answered, not thrown, and so is a tool's failure; each router waits
// as long as its slowest tool (a gated one 960 s); and the files are what scripts/tool-routers.ts generates. Each
// check also runs on a broken copy, so this test can fail.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TOOL_CALLS } from '../../assistant/src/tools/arguments';
import { runsApprovalGate, TOOL_GROUPS, TOOL_REGISTRY, type AssistantTool } from '../../assistant/src/tools/registry';
import { CHECK_NODE, REFUSE_NODE, ROUTER_TRIGGER, SWITCH_NODE } from '../../assistant/src/tools/router-workflows';
import { TOOL_ROUTERS } from '../../assistant/src/tools/routers';
import { generatedFiles } from '../../scripts/tool-routers';

interface Node {
  name: string;
  type: string;
  onError?: string;
  parameters: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
}
interface Workflow {
  id: string;
  nodes: Node[];
  connections: Record<string, Record<string, Array<Array<{ node: string }>>>>;
  settings: { executionTimeout: number };
  meta: { version: number };
}

const read = (file: string): Workflow =>
  JSON.parse(readFileSync(path.join(__dirname, '..', '..', 'workflows', file), 'utf8')) as Workflow;
const TOOL_NODE = '@n8n/n8n-nodes-langchain.toolWorkflow';
const TRIGGER = `$('${ROUTER_TRIGGER}').first().json`;
const routerFiles = TOOL_GROUPS.map((group) => TOOL_ROUTERS[group].workflow.file);
const routers = () => new Map(routerFiles.map((file) => [file, read(file)]));
const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/** Where a tool is not reached as it should be through the routers, one sentence per problem. */
function reachProblems(tool: AssistantTool, workflows: Map<string, Workflow>): string[] {
  const problems: string[] = [];
  const calls = [...workflows].flatMap(([file, workflow]) =>
    workflow.nodes
      .filter((node) => node.parameters.workflowId?.value === tool.workflow.id)
      .map((node) => ({ file, workflow, node })),
  );
  if (calls.length !== 1) return [`${tool.name}: run by ${calls.length} router nodes, not 1`];
  const [{ file, workflow, node }] = calls;
  if (file !== TOOL_ROUTERS[tool.group].workflow.file) problems.push(`${tool.name}: routed by ${file}`);
  const which = workflow.nodes.find((found) => found.name === SWITCH_NODE);
  const rules = (which?.parameters.rules.values ?? []) as Array<{ outputKey: string; conditions: any }>; // eslint-disable-line @typescript-eslint/no-explicit-any
  const output = rules.findIndex((rule) => rule.outputKey === tool.name);
  const condition = rules[output]?.conditions.conditions[0];
  if (output === -1 || condition?.leftValue !== '={{ $json.action }}' || condition?.rightValue !== tool.name) {
    problems.push(`${tool.name}: no Switch rule for action ${tool.name}`);
  } else if (workflow.connections[SWITCH_NODE]?.main[output]?.[0]?.node !== node.name) {
    problems.push(`${tool.name}: its Switch output does not lead to ${node.name}`);
  }
  if (node.onError !== 'continueRegularOutput') problems.push(`${tool.name}: a failure of its workflow fails the turn`);
  const mapped = node.parameters.workflowInputs.value as Record<string, string>;
  const spec = TOOL_CALLS[tool.name];
  for (const arg of spec.arguments) {
    if (mapped[arg.name] !== `={{ $json.args.${arg.name} }}`) problems.push(`${tool.name}: ${arg.name} is not mapped`);
  }
  for (const field of spec.turnFields) {
    if (!mapped[field]?.startsWith(`={{ ${TRIGGER}.${field}`)) problems.push(`${tool.name}: ${field} is not mapped`);
  }
  for (const [name, value] of Object.entries(spec.fixedInputs ?? {})) {
    if (mapped[name] !== value) problems.push(`${tool.name}: ${name} is not ${value}`);
  }
  const expected = spec.arguments.length + spec.turnFields.length + Object.keys(spec.fixedInputs ?? {}).length;
  if (Object.keys(mapped).length !== expected) problems.push(`${tool.name}: maps other inputs too`);
  return problems;
}

describe('the router tools', () => {
  it('are the agent’s only tools: one per group, each running its router with the turn from the turn', () => {
    const agent = read('assistant-agent.json');
    const tools = agent.nodes.filter((node) => node.type === TOOL_NODE);
    expect(tools.map((node) => node.name)).toEqual(TOOL_GROUPS.map((group) => TOOL_ROUTERS[group].name));
    for (const group of TOOL_GROUPS) {
      const node = tools.find((found) => found.name === TOOL_ROUTERS[group].name)!;
      expect(node.parameters.workflowId.value, group).toBe(TOOL_ROUTERS[group].workflow.id);
      expect(node.parameters.workflowInputs.value).toEqual({
        action: "={{ $fromAI('action', 'One of the actions listed', 'string') }}",
        args: "={{ $fromAI('args', 'The action\\'s arguments as the text of a JSON object, empty when it has none', 'string') }}",
        user_id: "={{ $('Turn to Run').first().json.user_id }}",
        turn_id: "={{ $('Turn to Run').first().json.turn_id }}",
        channel: "={{ $('Turn to Run').first().json.channel }}",
        chat_id: "={{ $('Turn to Run').first().json.chat_id ?? '' }}",
        deadline: "={{ $('Load Context').first().json.deadline }}",
      });
      expect(agent.connections[node.name].ai_tool[0][0].node).toBe('Assistant Agent');
    }
  });

  it('reach every registry tool through exactly one router, its arguments and turn fields all mapped', () => {
    const workflows = routers();
    expect(TOOL_REGISTRY.flatMap((tool) => reachProblems(tool, workflows))).toEqual([]);
    for (const [file, workflow] of workflows) {
      const calls = workflow.nodes.filter((node) => node.type === 'n8n-nodes-base.executeWorkflow');
      expect(calls.length, file).toBe(
        workflow.nodes.find((node) => node.name === SWITCH_NODE)!.parameters.rules.values.length,
      );
    }
  });

  it('check each call in code first and answer a bad one with its error, never a stack', () => {
    for (const [file, workflow] of routers()) {
      const group = TOOL_GROUPS.find((found) => TOOL_ROUTERS[found].workflow.file === file)!;
      const check = workflow.nodes.find((node) => node.name === CHECK_NODE)!;
      expect(check.type, file).toBe('n8n-nodes-judge-assistant.assistantToolBuilder');
      expect(check.parameters, file).toEqual({
        operation: 'checkAgentCall',
        group,
        action: '={{ $json.action }}',
        args: '={{ $json.args }}',
      });
      expect(check.onError, file).toBe('continueErrorOutput');
      expect(workflow.connections[ROUTER_TRIGGER].main, file).toEqual([
        [expect.objectContaining({ node: CHECK_NODE })],
      ]);
      expect(
        workflow.connections[CHECK_NODE].main.map((links) => links.map((link) => link.node)),
        file,
      ).toEqual([[SWITCH_NODE], [REFUSE_NODE]]);
      const refuse = workflow.nodes.find((node) => node.name === REFUSE_NODE)!;
      expect(refuse.parameters.assignments.assignments, file).toEqual([
        expect.objectContaining({ name: 'error', value: '={{ $json.error?.message ?? $json.error }}' }),
      ]);
    }
  });

  it('wait as long as their slowest tool, a gated one at least 960 s (its 300 and the approval gate’s 660)', () => {
    for (const group of TOOL_GROUPS) {
      const router = read(TOOL_ROUTERS[group].workflow.file);
      const tools = TOOL_REGISTRY.filter((tool) => tool.group === group);
      for (const tool of tools) {
        const own = read(tool.workflow.file).settings.executionTimeout;
        expect(router.settings.executionTimeout, `${group}: ${tool.name}`).toBeGreaterThanOrEqual(own);
      }
      if (tools.some(runsApprovalGate)) expect(router.settings.executionTimeout, group).toBeGreaterThanOrEqual(960);
    }
    expect(read('assistant-agent.json').settings.executionTimeout).toBeGreaterThan(
      Math.max(...routerFiles.map((file) => read(file).settings.executionTimeout)),
    );
  });

  it('are what scripts/tool-routers.ts generates (run it after changing the registry)', () => {
    for (const [file, generated] of generatedFiles()) {
      const written = read(file);
      expect({ ...written, meta: { ...written.meta, version: 0 } }, file).toEqual({
        ...generated,
        meta: { ...generated.meta, version: 0 },
      });
    }
  });
});

describe('the router checks name what is wrong (this test can fail)', () => {
  const remember = TOOL_REGISTRY.find((tool) => tool.name === 'remember_memory')!;

  it('an argument not mapped, a turn field missing, a tool routed twice or not at all', () => {
    const workflows = routers();
    const memory = copy(workflows.get('assistant-tools-memory.json')!);
    const node = memory.nodes.find((found) => found.name === 'Run remember_memory')!;
    delete node.parameters.workflowInputs.value.people;
    delete node.onError;
    node.parameters.workflowInputs.value.user_id = '={{ $json.user_id }}';
    const broken = new Map(workflows).set('assistant-tools-memory.json', memory);
    expect(reachProblems(remember, broken)).toEqual([
      'remember_memory: a failure of its workflow fails the turn',
      'remember_memory: people is not mapped',
      'remember_memory: user_id is not mapped',
      'remember_memory: maps other inputs too',
    ]);
    const twice = new Map(workflows).set('extra.json', workflows.get('assistant-tools-memory.json')!);
    expect(reachProblems(remember, twice)).toEqual(['remember_memory: run by 2 router nodes, not 1']);
    const none = copy(workflows.get('assistant-tools-memory.json')!);
    none.nodes = none.nodes.filter((found) => found.name !== 'Run remember_memory');
    expect(reachProblems(remember, new Map(workflows).set('assistant-tools-memory.json', none))).toEqual([
      'remember_memory: run by 0 router nodes, not 1',
    ]);
  });

  it('a Switch rule missing or leading elsewhere', () => {
    const workflows = routers();
    const memory = copy(workflows.get('assistant-tools-memory.json')!);
    memory.connections[SWITCH_NODE].main[0] = [{ node: 'Run recall_memories' }];
    expect(reachProblems(remember, new Map(workflows).set('assistant-tools-memory.json', memory))).toEqual([
      'remember_memory: its Switch output does not lead to Run remember_memory',
    ]);
    const which = memory.nodes.find((found) => found.name === SWITCH_NODE)!;
    which.parameters.rules.values[0].outputKey = 'remember';
    expect(reachProblems(remember, new Map(workflows).set('assistant-tools-memory.json', memory))).toEqual([
      'remember_memory: no Switch rule for action remember_memory',
    ]);
  });
});
