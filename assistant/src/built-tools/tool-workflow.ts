// Renders a built tool's spec into its n8n workflow, from fixed templates (never free-form JSON from the model):
// typed inputs → Check the URL (the outbound guard, at every run) → Call the API (HTTP Request, authenticated by the
// named n8n credential, following no redirect) → Map the Response (the spec's fields). The workflow is created
// inactive; it goes live only after the operator's yes.
import { createHash } from 'node:crypto';
import type { WorkflowJson, WorkflowNode } from '../n8n/workflow-api';
import type { ToolSpec } from './spec';

/** The credential types a built tool can be authenticated with (the HTTP Request node's generic ones). */
export const TOOL_CREDENTIAL_TYPES = [
  'httpHeaderAuth',
  'httpQueryAuth',
  'httpBearerAuth',
  'httpBasicAuth',
  'httpDigestAuth',
  'httpCustomAuth',
] as const;

export interface ToolCredential {
  id: string;
  name: string;
  type: string;
}

/** The tags and error workflow every built tool gets; its runs stop after 5 minutes. */
export const BUILT_TOOL_TAG_IDS: readonly string[] = ['tagAssistant0001', 'tagTool000000001'];
export const BUILT_TOOL_ERROR_WORKFLOW = 'asstErrorWorkfl1';
export const BUILT_TOOL_RUN_SECONDS = 300;

const TRIGGER = 'When Called by the Agent';
const CHECK = 'Check the URL';
const CALL = 'Call the API';
const MAP = 'Map the Response';
const PLACEHOLDER = /\{([a-zA-Z0-9_]+)\}/g;

function nodeId(tool: string, name: string): string {
  const hex = createHash('sha1').update(`built-tool:${tool}:${name}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-b${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** The URL template as an n8n expression: literal parts quoted, each input URL-encoded. */
export function urlExpression(template: string): string {
  const parts: string[] = [];
  let last = 0;
  for (const match of template.matchAll(PLACEHOLDER)) {
    if (match.index! > last) parts.push(JSON.stringify(template.slice(last, match.index)));
    parts.push(`encodeURIComponent(String($json.${match[1]} ?? ''))`);
    last = match.index! + match[0].length;
  }
  if (last < template.length) parts.push(JSON.stringify(template.slice(last)));
  return `={{ ${parts.join(' + ')} }}`;
}

function bodyExpression(body: Record<string, string>): string {
  const fields = Object.entries(body).map(([key, value]) => {
    const single = /^\{([a-zA-Z0-9_]+)\}$/.exec(value.trim());
    if (single) return `${JSON.stringify(key)}: $('${TRIGGER}').item.json.${single[1]}`;
    const parts: string[] = [];
    let last = 0;
    for (const match of value.matchAll(PLACEHOLDER)) {
      if (match.index! > last) parts.push(JSON.stringify(value.slice(last, match.index)));
      parts.push(`String($('${TRIGGER}').item.json.${match[1]} ?? '')`);
      last = match.index! + match[0].length;
    }
    if (last < value.length || parts.length === 0) parts.push(JSON.stringify(value.slice(last)));
    return `${JSON.stringify(key)}: ${parts.join(' + ')}`;
  });
  return `={{ JSON.stringify({ ${fields.join(', ')} }) }}`;
}

/** A dotted path as an optional-chained read of the response: main.temp → $json?.["main"]?.["temp"]. */
function pathExpression(path: string): string {
  return `={{ $json${path
    .split('.')
    .map((segment) => `?.[${/^\d+$/.test(segment) ? segment : JSON.stringify(segment)}]`)
    .join('')} }}`;
}

/** The workflow of a built tool, ready for n8n's public API (no id: n8n gives one). */
export function renderToolWorkflow(spec: ToolSpec, credential: ToolCredential | null): WorkflowJson {
  const inputList = spec.inputs.map((input) => `\`${input.name}\` (${input.type})`).join(', ') || 'none';
  const nodes: WorkflowNode[] = [
    {
      id: nodeId(spec.name, 'Note'),
      name: 'Note: The Tool',
      type: 'n8n-nodes-base.stickyNote',
      typeVersion: 1,
      position: [-60, -260],
      parameters: {
        content:
          `### Built tool: ${spec.name}\n${spec.purpose} Inputs: ${inputList}. **${CHECK}** runs the outbound guard ` +
          `before every call; **${CALL}** uses ${credential ? `the credential "${credential.name}"` : 'no credential'} ` +
          `and follows no redirect; **${MAP}** keeps ${spec.responseFields.map((field) => field.name).join(', ')}.`,
        height: 480,
        width: 1080,
        color: 5,
      },
    },
    {
      id: nodeId(spec.name, TRIGGER),
      name: TRIGGER,
      type: 'n8n-nodes-base.executeWorkflowTrigger',
      typeVersion: 1.1,
      position: [0, 0],
      parameters: {
        inputSource: 'workflowInputs',
        workflowInputs: { values: spec.inputs.map((input) => ({ name: input.name, type: input.type })) },
      },
    },
    {
      id: nodeId(spec.name, CHECK),
      name: CHECK,
      type: 'n8n-nodes-judge-assistant.assistantWeb',
      typeVersion: 1,
      position: [260, 0],
      parameters: { operation: 'checkUrl', url: urlExpression(spec.url) },
    },
    {
      id: nodeId(spec.name, CALL),
      name: CALL,
      type: 'n8n-nodes-base.httpRequest',
      typeVersion: 4.2,
      position: [520, 0],
      parameters: {
        method: spec.method,
        url: '={{ $json.url }}',
        ...(credential
          ? { authentication: 'genericCredentialType', genericAuthType: credential.type }
          : { authentication: 'none' }),
        ...(spec.body ? { sendBody: true, specifyBody: 'json', jsonBody: bodyExpression(spec.body) } : {}),
        options: {
          redirect: { redirect: { followRedirects: false } },
          timeout: 30_000,
        },
      },
      ...(credential ? { credentials: { [credential.type]: { id: credential.id, name: credential.name } } } : {}),
    },
    {
      id: nodeId(spec.name, MAP),
      name: MAP,
      type: 'n8n-nodes-base.set',
      typeVersion: 3.4,
      position: [780, 0],
      parameters: {
        mode: 'manual',
        assignments: {
          assignments: spec.responseFields.map((field) => ({
            id: nodeId(spec.name, `field:${field.name}`),
            name: field.name,
            value: pathExpression(field.path),
            type: 'string',
          })),
        },
        includeOtherFields: false,
        options: { ignoreConversionErrors: true },
      },
    },
  ];
  const link = (node: string) => ({ main: [[{ node, type: 'main', index: 0 }]] });
  return {
    name: `Assistant built tool: ${spec.name}`,
    nodes,
    connections: { [TRIGGER]: link(CHECK), [CHECK]: link(CALL), [CALL]: link(MAP) },
    settings: {
      executionOrder: 'v1',
      callerPolicy: 'workflowsFromSameOwner',
      executionTimeout: BUILT_TOOL_RUN_SECONDS,
      saveDataSuccessExecution: 'none',
      // Not even failed runs are saved: n8n keeps a failed HTTP Request's request in the execution data, and with a
      // Query Auth credential that includes the key. The error workflow still reports every failure.
      saveDataErrorExecution: 'none',
      saveManualExecutions: false,
      errorWorkflow: BUILT_TOOL_ERROR_WORKFLOW,
    },
  };
}
