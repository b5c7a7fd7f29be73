// The n8n JSON the routers are made of, generated from the registry (scripts/tool-routers.ts writes it): the main
// agent's router tool node per group, and each router's workflow (trigger → Check the Call → Which Action? → the
// tool's own workflow; a bad call answered by Say What Is Wrong). Also one tool node per registry tool, as the agent
// had before the routers, for the catalogue experts' agents (experts/expert-workflow.ts).
import { createHash } from 'node:crypto';
import type { WorkflowNode } from '../n8n/workflow-api';
import { TURN_FIELDS, type TurnField } from './arguments';
import { TOOL_REGISTRY, type AssistantTool, type ToolGroup } from './registry';
import { groupTools, routerDescription, TOOL_ROUTERS, toolCallSpec } from './routers';

export const TOOL_NODE_TYPE = '@n8n/n8n-nodes-langchain.toolWorkflow';
const CALL_TYPE = 'n8n-nodes-base.executeWorkflow';
export const ROUTER_TRIGGER = 'When Called by the Agent';
export const CHECK_NODE = 'Check the Call';
export const SWITCH_NODE = 'Which Action?';
export const REFUSE_NODE = 'Say What Is Wrong';

/** Where a tool node reads the turn's fields from: the node of the user, turn and channel, and of the deadline. */
export interface TurnSources {
  turn: string;
  deadline: string;
}
/** The main agent's sources. */
export const AGENT_SOURCES: TurnSources = { turn: 'Turn to Run', deadline: 'Load Context' };

const INPUT_TYPES: Record<TurnField, 'string' | 'number'> = {
  user_id: 'string',
  turn_id: 'number',
  channel: 'string',
  chat_id: 'string',
  deadline: 'string',
};

/** A stable node id (UUID-shaped) from a seed, so a generation is reproducible. */
export function stableNodeId(seed: string): string {
  const hex = createHash('sha1').update(seed).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

const turnExpression = (field: TurnField, sources: TurnSources): string =>
  field === 'deadline'
    ? `={{ $('${sources.deadline}').first().json.deadline }}`
    : `={{ $('${sources.turn}').first().json.${field}${field === 'chat_id' ? " ?? ''" : ''} }}`;

const schemaColumn = (id: string, type: string) => ({
  id,
  displayName: id,
  required: false,
  defaultMatch: false,
  display: true,
  canBeUsedToMatch: true,
  type,
  removed: false,
});

/** Workflow inputs as n8n's "define below" mapping: the values and their typed columns. */
function workflowInputs(values: Record<string, string>, types: Record<string, string>) {
  return {
    mappingMode: 'defineBelow',
    value: values,
    matchingColumns: [],
    schema: Object.keys(values).map((id) => schemaColumn(id, types[id] ?? 'string')),
    attemptToConvertTypes: false,
    convertFieldsToString: false,
  };
}

/** A tool's fixed inputs: a whole number's text typed as a number (ask_user's attempt), the rest as text. */
function addFixedInputs(
  values: Record<string, string>,
  types: Record<string, string>,
  fixed: Readonly<Record<string, string>> = {},
): void {
  for (const [name, value] of Object.entries(fixed)) {
    values[name] = value;
    types[name] = /^\d+$/.test(value) ? 'number' : 'string';
  }
}

const fromAi = (name: string, description: string, type: string) =>
  `={{ $fromAI('${name}', '${description.replace(/'/g, "\\'")}', '${type}') }}`;

/** One registry tool as its own tool node (the model fills its arguments with $fromAI), for an expert's agent. */
export function toolNode(tool: AssistantTool, sources: TurnSources, seed: string): WorkflowNode {
  const spec = toolCallSpec(tool.name);
  const values: Record<string, string> = {};
  const types: Record<string, string> = {};
  for (const field of spec.turnFields) {
    values[field] = turnExpression(field, sources);
    types[field] = INPUT_TYPES[field];
  }
  for (const arg of spec.arguments) {
    values[arg.name] = fromAi(arg.name, arg.description, arg.type);
    types[arg.name] = arg.type;
  }
  addFixedInputs(values, types, spec.fixedInputs);
  return {
    parameters: {
      description: spec.description,
      workflowId: { __rl: true, mode: 'id', value: tool.workflow.id },
      workflowInputs: workflowInputs(values, types),
    },
    id: stableNodeId(`${seed}:${tool.name}`),
    name: tool.name,
    type: TOOL_NODE_TYPE,
    typeVersion: 2.2,
    position: [0, 0],
  };
}

export const ACTION_DESCRIPTION = 'One of the actions listed';
/**
 * `args` is JSON text, not n8n's json type: that type refuses an empty object (a non-empty object or array only), and
 * a schema mismatch fails the whole turn, so an action without arguments could not be called.
 */
export const ARGS_DESCRIPTION = "The action's arguments as the text of a JSON object, empty when it has none";

/** The main agent's router tool node of a group. */
export function routerToolNode(group: ToolGroup, position: [number, number]): WorkflowNode {
  const router = TOOL_ROUTERS[group];
  const values: Record<string, string> = {
    action: fromAi('action', ACTION_DESCRIPTION, 'string'),
    args: fromAi('args', ARGS_DESCRIPTION, 'string'),
  };
  for (const field of TURN_FIELDS) values[field] = turnExpression(field, AGENT_SOURCES);
  return {
    parameters: {
      description: routerDescription(group),
      workflowId: { __rl: true, mode: 'id', value: router.workflow.id },
      workflowInputs: workflowInputs(values, { ...INPUT_TYPES, action: 'string', args: 'string' }),
    },
    id: stableNodeId(`agent-router:${router.name}`),
    name: router.name,
    type: TOOL_NODE_TYPE,
    typeVersion: 2.2,
    position,
  };
}

/** The node of a router workflow that runs one tool's workflow. */
export const callNodeName = (tool: AssistantTool): string => `Run ${tool.name}`;

const ROUTER_SOURCES: TurnSources = { turn: ROUTER_TRIGGER, deadline: ROUTER_TRIGGER };
const ROW = 140;

/** The Execute Workflow node of a tool: the turn's fields it got before, its checked arguments, its fixed inputs. */
function callNode(tool: AssistantTool, group: ToolGroup, row: number): WorkflowNode {
  const spec = toolCallSpec(tool.name);
  const values: Record<string, string> = {};
  const types: Record<string, string> = {};
  for (const field of spec.turnFields) {
    values[field] = turnExpression(field, ROUTER_SOURCES);
    types[field] = INPUT_TYPES[field];
  }
  for (const arg of spec.arguments) {
    values[arg.name] = `={{ $json.args.${arg.name} }}`;
    types[arg.name] = arg.type;
  }
  addFixedInputs(values, types, spec.fixedInputs);
  return {
    parameters: {
      workflowId: { __rl: true, mode: 'id', value: tool.workflow.id },
      workflowInputs: workflowInputs(values, types),
      mode: 'once',
      options: { waitForSubWorkflow: true },
    },
    id: stableNodeId(`router:${group}:${tool.name}`),
    name: callNodeName(tool),
    type: CALL_TYPE,
    typeVersion: 1.2,
    position: [760, row * ROW],
    // A tool workflow that fails (a row not found, a refused value) answers the model with its error as the result,
    // instead of failing the router and with it the turn.
    onError: 'continueRegularOutput',
  };
}

function actionRule(group: ToolGroup, tool: AssistantTool) {
  return {
    conditions: {
      options: { caseSensitive: true, leftValue: '', typeValidation: 'strict', version: 2 },
      conditions: [
        {
          id: stableNodeId(`router:${group}:rule:${tool.name}`),
          leftValue: '={{ $json.action }}',
          rightValue: tool.name,
          operator: { type: 'string', operation: 'equals' },
        },
      ],
      combinator: 'and',
    },
    renameOutput: true,
    outputKey: tool.name,
  };
}

export interface RouterWorkflow {
  id: string;
  name: string;
  nodes: WorkflowNode[];
  connections: Record<string, Record<string, Array<Array<{ node: string; type: string; index: number }>>>>;
  active: false;
  settings: Record<string, unknown>;
  pinData: Record<string, never>;
  meta: { templateCredsSetupCompleted: true; version: number };
  tags: Array<{ id: string; name: string }>;
}

/**
 * A group's router workflow. `executionTimeout`: the longest of its tools' own limits, so a gated tool's wait for
 * the approval (960 s) and an expert's run fit; `version`: its meta.version.
 */
export function routerWorkflow(group: ToolGroup, executionTimeout: number, version: number): RouterWorkflow {
  const router = TOOL_ROUTERS[group];
  const tools = groupTools(group);
  const middle = Math.floor((tools.length - 1) / 2) * ROW;
  const link = (node: string) => [{ node, type: 'main', index: 0 }];
  const node = (name: string, type: string, typeVersion: number, x: number, parameters: Record<string, unknown>) => ({
    parameters,
    id: stableNodeId(`router:${group}:${name}`),
    name,
    type,
    typeVersion,
    position: [x, middle] as [number, number],
  });
  const note = {
    ...node('Note: The Router', 'n8n-nodes-base.stickyNote', 1, -60, {
      content:
        `### The ${router.name} router (${group})\nThe main agent's \`${router.name}\` tool: the model gives an ` +
        '`action` and its `args`; the user, turn, channel and deadline come from the turn. **Check the Call** checks ' +
        'them against the tool registry (Assistant Tool Builder → Check Agent Tool Call) and a bad action or field is ' +
        "answered by **Say What Is Wrong**, naming it; **Which Action?** runs the tool's own workflow, whose answer " +
        `(or error) is the tool's result. A run stops after ${executionTimeout} s (the longest of its tools).`,
      height: tools.length * ROW + 320,
      width: 1100,
      color: 5,
    }),
    position: [-60, -200] as [number, number],
  };
  const trigger = node(ROUTER_TRIGGER, 'n8n-nodes-base.executeWorkflowTrigger', 1.1, 0, {
    inputSource: 'workflowInputs',
    workflowInputs: {
      values: [
        { name: 'action', type: 'string' },
        { name: 'args', type: 'string' },
        ...TURN_FIELDS.map((field) => ({ name: field, type: INPUT_TYPES[field] })),
      ],
    },
  });
  const check = {
    ...node(CHECK_NODE, 'n8n-nodes-judge-assistant.assistantToolBuilder', 1, 220, {
      operation: 'checkAgentCall',
      group,
      action: '={{ $json.action }}',
      args: '={{ $json.args }}',
    }),
    onError: 'continueErrorOutput',
  };
  const refuse = {
    ...node(REFUSE_NODE, 'n8n-nodes-base.set', 3.4, 440, {
      mode: 'manual',
      assignments: {
        assignments: [
          {
            id: stableNodeId(`router:${group}:error`),
            name: 'error',
            value: '={{ $json.error?.message ?? $json.error }}',
            type: 'string',
          },
        ],
      },
      includeOtherFields: false,
      options: {},
    }),
    position: [440, middle + 260] as [number, number],
  };
  const which = node(SWITCH_NODE, 'n8n-nodes-base.switch', 3.2, 480, {
    rules: { values: tools.map((tool) => actionRule(group, tool)) },
    options: {},
  });
  const calls = tools.map((tool, row) => callNode(tool, group, row));
  const connections: RouterWorkflow['connections'] = {
    [ROUTER_TRIGGER]: { main: [link(CHECK_NODE)] },
    [CHECK_NODE]: { main: [link(SWITCH_NODE), link(REFUSE_NODE)] },
    [SWITCH_NODE]: { main: calls.map((call) => link(call.name)) },
  };
  return {
    id: router.workflow.id,
    name: `Assistant tools: ${group}`,
    nodes: [note, trigger, check, refuse, which, ...calls],
    connections,
    active: false,
    settings: {
      executionOrder: 'v1',
      callerPolicy: 'workflowsFromSameOwner',
      executionTimeout,
      saveDataSuccessExecution: 'none',
      saveDataErrorExecution: 'all',
      saveManualExecutions: true,
      errorWorkflow: 'asstErrorWorkfl1',
    },
    pinData: {},
    meta: { templateCredsSetupCompleted: true, version },
    tags: [
      { id: 'tagAssistant0001', name: 'assistant' },
      { id: 'tagTool000000001', name: 'tool' },
    ],
  };
}

/** Every registry tool's router and the Execute Workflow node that runs it (for tests and the docs). */
export const routedTools = (): Array<{ tool: AssistantTool; router: string; node: string }> =>
  TOOL_REGISTRY.map((tool) => ({ tool, router: TOOL_ROUTERS[tool.group].name, node: callNodeName(tool) }));
