// Renders a catalogue expert into its n8n workflow, the same shape as the shipped experts': a trigger taking the task,
// Expert Settings (its model), its own AI Agent with the entry's system prompt, a Chat Model and its tools. The Chat
// Model is copied from the main agent's workflow as it is in n8n (the operator's edits included); the tools are the
// registry's, one tool node each as the main agent had them before its routers (tools/router-workflows.ts), bound to
// the expert's trigger instead of the turn.
import { createHash } from 'node:crypto';
import { AssistantInputError } from '../errors';
import type { WorkflowJson, WorkflowNode } from '../n8n/workflow-api';
import { toolByName } from '../tools/registry';
import { toolNode } from '../tools/router-workflows';
import type { CatalogueExpert } from './catalogue';

/** The main agent's workflow, whose Chat Model and tool nodes an installed expert reuses. */
export const MAIN_AGENT_WORKFLOW_ID = 'assistantAgent01';
/** The tags every expert workflow carries (created by the workflow import). */
export const EXPERT_TAG_IDS: readonly string[] = ['tagAssistant0001', 'tagExpert0000001'];
/**
 * An expert's run stops after 21 minutes: two calls of its model at the longest modelTimeoutSeconds (600 s; the Chat
 * Model retries once) and a minute, so a model on a CPU can answer; the agent stops after 8 tool calls.
 */
export const EXPERT_RUN_SECONDS = 1260;
/**
 * An expert that may ask the user (ask_user) gets the question's wait on top: n8n's run timeout cannot leave the wait
 * out, so it allows the longest one (the questionTtlSeconds setting's maximum default of 5 minutes).
 */
export const EXPERT_QUESTION_WAIT_SECONDS = 300;
export const EXPERT_MAX_TOOL_CALLS = 8;

const TRIGGER = 'Task for the Expert';
const SETTINGS = 'Expert Settings';
const MODEL = 'Expert Model';
const CHAT_MODEL = 'Chat Model';
const AGENT_TYPE = '@n8n/n8n-nodes-langchain.agent';
const NODES_PACKAGE = 'n8n-nodes-judge-assistant';

/** A stable node id (UUID-shaped) from the expert and the node's name, so a render is reproducible. */
function nodeId(expertId: string, name: string): string {
  const hex = createHash('sha1').update(`expert:${expertId}:${name}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

function findNode(agent: WorkflowJson, name: string, type?: string): WorkflowNode | undefined {
  return agent.nodes.find((node) => node.name === name && (type === undefined || node.type === type));
}

/** The Postgres credential the main agent's own nodes use. */
function postgresCredential(agent: WorkflowJson): { id: string; name: string } {
  const node = agent.nodes.find(
    (candidate) => candidate.type.startsWith(NODES_PACKAGE) && candidate.credentials?.postgres,
  );
  if (!node?.credentials?.postgres) {
    throw new AssistantInputError('agentWorkflow', 'the main agent workflow has no node with the Postgres credential');
  }
  return node.credentials.postgres;
}

/**
 * The expert's Chat Model: the main agent's node (provider, credential, options), asking for the expert's model, with
 * the modelTimeoutSeconds setting from Expert Settings as its timeout (the main agent's reads it from Load Context).
 */
function expertModel(agent: WorkflowJson, expertId: string): WorkflowNode {
  const chatModel = findNode(agent, CHAT_MODEL);
  if (!chatModel) throw new AssistantInputError('agentWorkflow', `the main agent workflow has no "${CHAT_MODEL}" node`);
  const node = copy(chatModel);
  const model = `={{ $('${SETTINGS}').first().json.model }}`;
  const current = node.parameters.model;
  node.parameters.model =
    typeof current === 'object' && current !== null ? { ...(current as object), value: model } : model;
  const options = node.parameters.options;
  node.parameters.options = {
    ...(typeof options === 'object' && options !== null ? options : {}),
    timeout: `={{ $('${SETTINGS}').first().json.modelTimeoutSeconds * 1000 }}`,
  };
  return { ...node, id: nodeId(expertId, MODEL), name: MODEL, position: [580, 560] };
}

/** The workflow of a catalogue expert, ready for n8n's public API (no id: n8n gives one). */
export function renderExpertWorkflow(entry: CatalogueExpert, agent: WorkflowJson): WorkflowJson {
  const agentNode = findNode(agent, 'Assistant Agent', AGENT_TYPE);
  const agentName = `${entry.name} Agent`;
  const tools = entry.tools.map((tool, index) => {
    const found = toolByName(tool);
    if (!found) throw new AssistantInputError('tools', `"${tool}" is not a tool of the main agent (tool registry)`);
    const node = toolNode(found, { turn: TRIGGER, deadline: TRIGGER }, `expert:${entry.id}`);
    return {
      ...node,
      id: nodeId(entry.id, tool),
      position: [760 + (index % 4) * 170, 560 + Math.floor(index / 4) * 180] as [number, number],
    };
  });
  const width = Math.max(700, 280 + Math.min(tools.length, 4) * 170);
  const nodes: WorkflowNode[] = [
    {
      id: nodeId(entry.id, 'Note: The Task'),
      name: 'Note: The Task',
      type: 'n8n-nodes-base.stickyNote',
      typeVersion: 1,
      position: [-60, -120],
      parameters: {
        content:
          `### 1 · The task\n**${TRIGGER}** gets the task the main agent delegates (ask_expert) and the run's user, turn ` +
          `and channel. **${SETTINGS}** gives the model this expert runs with: its own (Assistant Experts → Set Expert ` +
          'Model), or the chat model setting.',
        height: 560,
        width: 560,
        color: 5,
      },
    },
    {
      id: nodeId(entry.id, 'Note: The Expert'),
      name: 'Note: The Expert',
      type: 'n8n-nodes-base.stickyNote',
      typeVersion: 1,
      position: [520, -120],
      parameters: {
        content:
          `### 2 · ${entry.name}\nInstalled from the catalogue (\`${entry.id}\`). **${agentName}** works with its own ` +
          `system prompt, its **${MODEL}** and its tools: at most ${EXPERT_MAX_TOOL_CALLS} tool calls, and the run ` +
          `stops after 5 minutes${entry.tools.includes('ask_user') ? ' (plus the wait when it asks the user)' : ''}. ` +
          'Its answer goes back to the main agent; a failure goes to failure awareness.',
        height: 820 + Math.floor((tools.length - 1) / 4) * 180,
        width,
        color: 4,
      },
    },
    {
      id: nodeId(entry.id, TRIGGER),
      name: TRIGGER,
      type: 'n8n-nodes-base.executeWorkflowTrigger',
      typeVersion: 1.1,
      position: [0, 300],
      parameters: {
        inputSource: 'workflowInputs',
        workflowInputs: {
          values: [
            { name: 'user_id', type: 'string' },
            { name: 'turn_id', type: 'number' },
            { name: 'channel', type: 'string' },
            { name: 'chat_id', type: 'string' },
            { name: 'task', type: 'string' },
            { name: 'deadline', type: 'string' },
          ],
        },
      },
    },
    {
      id: nodeId(entry.id, SETTINGS),
      name: SETTINGS,
      type: `${NODES_PACKAGE}.assistantExperts`,
      typeVersion: 1,
      position: [260, 300],
      parameters: { operation: 'expertSettings', expertId: entry.id },
      credentials: { postgres: postgresCredential(agent) },
    },
    {
      id: nodeId(entry.id, agentName),
      name: agentName,
      type: AGENT_TYPE,
      typeVersion: agentNode?.typeVersion ?? 2.2,
      position: [640, 300],
      parameters: {
        promptType: 'define',
        text: `={{ $('${TRIGGER}').first().json.task }}`,
        options: { systemMessage: entry.systemPrompt, maxIterations: EXPERT_MAX_TOOL_CALLS },
      },
    },
    expertModel(agent, entry.id),
    ...tools,
  ];
  const link = (node: string, type: string) => ({ [type]: [[{ node, type, index: 0 }]] });
  const connections: WorkflowJson['connections'] = {
    [TRIGGER]: link(SETTINGS, 'main'),
    [SETTINGS]: link(agentName, 'main'),
    [MODEL]: link(agentName, 'ai_languageModel'),
  };
  for (const tool of tools) connections[tool.name] = link(agentName, 'ai_tool');
  return {
    name: `Assistant expert: ${entry.name.toLowerCase()} (catalogue)`,
    nodes,
    connections,
    settings: {
      executionOrder: 'v1',
      callerPolicy: 'workflowsFromSameOwner',
      executionTimeout: entry.tools.includes('ask_user')
        ? EXPERT_RUN_SECONDS + EXPERT_QUESTION_WAIT_SECONDS
        : EXPERT_RUN_SECONDS,
      saveDataSuccessExecution: 'none',
      saveDataErrorExecution: 'all',
      saveManualExecutions: true,
      ...(typeof agent.settings?.errorWorkflow === 'string' ? { errorWorkflow: agent.settings.errorWorkflow } : {}),
    },
  };
}
