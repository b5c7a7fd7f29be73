// Built tools from draft to live: the operator asks for a tool (build_tool with a spec); its workflow is rendered and
// created inactive through n8n's public API, a test execution runs it with the spec's samples, the operator sees the
// output in an approval question, and only their yes publishes it and makes run_tool reach it. A failed test, a no or
// no answer deletes the draft. list/disable/delete manage the live ones.
import type { Queryable } from '../storage/db';
import { AssistantInputError, AssistantNotFoundError } from '../errors';
import type { WorkflowApi } from '../n8n/workflow-api';
import { removeWorkflow } from '../n8n/remove-workflow';
import { TOOL_REGISTRY } from '../tools/registry';
import { isApproval, requireApprovalQuestion, requireOperator } from '../pending/approvals';
import { literalSecret, sampleUrl, validateToolSpec, type ToolSpec } from './spec';
import { BUILT_TOOL_TAG_IDS, renderToolWorkflow, TOOL_CREDENTIAL_TYPES, type ToolCredential } from './tool-workflow';

/** Whether a URL may be called (the outbound guard's decision). */
export type UrlCheck = (url: string) => Promise<{ allowed: true } | { allowed: false; reason: string }>;

/** Names a built tool cannot take: every tool of the assistant's own (ask_<expert> and the tool building ones too). */
export const RESERVED_TOOL_NAMES: readonly string[] = TOOL_REGISTRY.map((tool) => tool.name);

/** The field a test run's inputs are passed beside (inputs start with a letter, so it cannot collide). */
export const DRAFT_FIELD = '_draft';
export const WORKFLOW_FIELD = '_workflowId';
/** The longest test output shown in the approval question. */
const TEST_OUTPUT_CHARS = 1500;

function requireToolName(value: unknown): string {
  const name = typeof value === 'string' ? value.trim().toLowerCase() : '';
  if (!/^[a-z][a-z0-9_]{2,39}$/.test(name))
    throw new AssistantInputError('name', 'must be a built tool name, e.g. city_weather');
  return name;
}

async function toolRow(db: Queryable, name: string) {
  const found = await db.query<{ workflow_id: string; status: string; spec: ToolSpec; purpose: string }>(
    'SELECT workflow_id, status, spec, purpose FROM assistant.built_tools WHERE name = $1',
    [name],
  );
  return found.rows[0];
}

function parseSpec(input: unknown): unknown {
  if (typeof input !== 'string') return input;
  try {
    return JSON.parse(input) as unknown;
  } catch {
    throw new AssistantInputError(
      'spec',
      'must be a JSON object: {name, purpose, inputs, method, url, credential, responseFields}',
    );
  }
}

async function resolveCredential(api: WorkflowApi, name: string | null): Promise<ToolCredential | null> {
  if (name === null) return null;
  const found = await api.findCredential(name);
  if (!found) {
    throw new AssistantInputError(
      'credential',
      `n8n has no credential named "${name}": ask the operator to create it in n8n (e.g. Header Auth) first`,
    );
  }
  if (!(TOOL_CREDENTIAL_TYPES as readonly string[]).includes(found.type)) {
    throw new AssistantInputError(
      'credential',
      `"${name}" is a ${found.type} credential; a built tool takes one of ${TOOL_CREDENTIAL_TYPES.join(', ')}`,
    );
  }
  return found;
}

export interface ToolDraft {
  name: string;
  workflowId: string;
  /** The workflow as JSON, for the test execution (Execute Sub-workflow, Source: Parameter). */
  workflowJson: string;
  samples: Record<string, string | number | boolean>;
}

/**
 * Checks the spec (fields, no literal secret, the URL through the guard, the credential by name), renders the
 * workflow, creates it inactive and tagged, and records the draft. An older draft of the same name is replaced; a
 * live tool of that name is not.
 */
export async function draftTool(
  db: Queryable,
  api: WorkflowApi,
  checkUrl: UrlCheck,
  input: { userId: unknown; spec: unknown },
): Promise<ToolDraft> {
  await requireOperator(db, input.userId, 'build tools');
  const spec = validateToolSpec(parseSpec(input.spec), RESERVED_TOOL_NAMES);
  const decision = await checkUrl(sampleUrl(spec));
  if (!decision.allowed) throw new AssistantInputError('url', `is refused by the outbound guard: ${decision.reason}`);
  const existing = await toolRow(db, spec.name);
  if (existing && existing.status !== 'draft') {
    throw new AssistantInputError('name', `a tool "${spec.name}" exists already (${existing.status}); delete it first`);
  }
  if (existing) {
    await removeWorkflow(api, existing.workflow_id);
    await db.query(`DELETE FROM assistant.built_tools WHERE name = $1 AND status = 'draft'`, [spec.name]);
  }
  const workflow = renderToolWorkflow(spec, await resolveCredential(api, spec.credential));
  const serialised = JSON.stringify(workflow);
  const secret = literalSecret(serialised);
  if (secret) throw new AssistantInputError('spec', `the workflow would contain ${secret}; nothing was created`);
  const { id: workflowId } = await api.createWorkflow(workflow);
  try {
    await api.setWorkflowTags(workflowId, BUILT_TOOL_TAG_IDS);
    await db.query(
      `INSERT INTO assistant.built_tools (name, workflow_id, purpose, spec, requested_by) VALUES ($1, $2, $3, $4, $5)`,
      [spec.name, workflowId, spec.purpose, JSON.stringify(spec), String(input.userId).trim().toLowerCase()],
    );
  } catch (error) {
    await removeWorkflow(api, workflowId).catch(() => false);
    throw error;
  }
  return {
    name: spec.name,
    workflowId,
    workflowJson: serialised,
    samples: Object.fromEntries(spec.inputs.map((entry) => [entry.name, entry.sample])),
  };
}

function describeCall(spec: ToolSpec): string {
  return `${spec.method} ${spec.url}${spec.credential ? ` with the credential "${spec.credential}"` : ' without a credential'}`;
}

/**
 * After the test execution: the question for the operator, with what the tool calls and the test's output; or, when
 * the test failed, the draft deleted and n8n's message for the model.
 */
export async function toolApprovalQuestion(
  db: Queryable,
  api: WorkflowApi,
  input: { name: unknown; testOutput: unknown; testError?: unknown },
): Promise<{ name: string; asked: boolean; question?: string; result?: string }> {
  const name = requireToolName(input.name);
  const row = await toolRow(db, name);
  if (!row || row.status !== 'draft') throw new AssistantNotFoundError('name', `no draft tool "${name}"`);
  const error = typeof input.testError === 'string' && input.testError.trim() !== '' ? input.testError.trim() : null;
  if (error) {
    await removeWorkflow(api, row.workflow_id);
    await db.query(`DELETE FROM assistant.built_tools WHERE name = $1`, [name]);
    return {
      name,
      asked: false,
      result: `The test execution of "${name}" failed, so nothing was kept: ${error}`,
    };
  }
  const output = typeof input.testOutput === 'string' ? input.testOutput : JSON.stringify(input.testOutput ?? null);
  await db.query('UPDATE assistant.built_tools SET test_output = $2 WHERE name = $1', [name, JSON.stringify(output)]);
  const samples =
    row.spec.inputs.map((entry) => `${entry.name}=${JSON.stringify(entry.sample)}`).join(', ') || 'no inputs';
  const shown = output.length > TEST_OUTPUT_CHARS ? `${output.slice(0, TEST_OUTPUT_CHARS)}…` : output;
  return {
    name,
    asked: true,
    question:
      `Activate the built tool "${name}"? ${row.purpose} It calls ${describeCall(row.spec)}. ` +
      `Test with ${samples} gave: ${shown} Answer yes or no.`,
  };
}

/** The operator's answer: a yes publishes the draft and makes it reachable; anything else deletes it. */
export async function decideTool(
  db: Queryable,
  api: WorkflowApi,
  input: { name: unknown; questionId: unknown; answer: unknown; status?: unknown },
): Promise<{ name: string; active: boolean; result: string }> {
  const name = requireToolName(input.name);
  const row = await toolRow(db, name);
  if (!row || row.status !== 'draft') throw new AssistantNotFoundError('name', `no draft tool "${name}"`);
  const answered = input.status === undefined || input.status === 'answered';
  if (answered)
    await requireApprovalQuestion(db, input.questionId, { marker: `"${name}"`, what: `the tool "${name}"` });
  if (!answered || !isApproval(input.answer)) {
    await removeWorkflow(api, row.workflow_id);
    await db.query(`DELETE FROM assistant.built_tools WHERE name = $1`, [name]);
    const why = answered ? 'the operator did not approve it' : 'the operator did not answer in time';
    return { name, active: false, result: `Not activated: ${why}. The draft was deleted; nothing is live.` };
  }
  await api.publishWorkflow(row.workflow_id);
  await db.query(`UPDATE assistant.built_tools SET status = 'active', approved_at = now() WHERE name = $1`, [name]);
  return { name, active: true, result: `The tool "${name}" is live: call it with run_tool {name: "${name}", input}.` };
}

export interface BuiltToolSummary {
  name: string;
  purpose: string;
  status: string;
  inputs: Array<{ name: string; type: string; description: string }>;
  calls: string;
}

export async function listBuiltTools(db: Queryable): Promise<BuiltToolSummary[]> {
  const rows = await db.query<{ name: string; purpose: string; status: string; spec: ToolSpec }>(
    `SELECT name, purpose, status, spec FROM assistant.built_tools ORDER BY name`,
  );
  return rows.rows.map((row) => ({
    name: row.name,
    purpose: row.purpose,
    status: row.status,
    inputs: row.spec.inputs.map(({ name, type, description }) => ({ name, type, description })),
    calls: describeCall(row.spec),
  }));
}

/** Switches a live tool off (its workflow unpublished); only the operator may. */
export async function disableBuiltTool(db: Queryable, api: WorkflowApi, input: { userId: unknown; name: unknown }) {
  await requireOperator(db, input.userId, 'disable tools');
  const name = requireToolName(input.name);
  const row = await toolRow(db, name);
  if (!row || row.status !== 'active') throw new AssistantNotFoundError('name', `no live tool "${name}"`);
  await api.unpublishWorkflow(row.workflow_id);
  await db.query(`UPDATE assistant.built_tools SET status = 'disabled' WHERE name = $1`, [name]);
  return { name, status: 'disabled', result: `The tool "${name}" is switched off; its workflow stays in n8n.` };
}

/** Deletes a tool and its workflow; only the operator may. */
export async function deleteBuiltTool(db: Queryable, api: WorkflowApi, input: { userId: unknown; name: unknown }) {
  await requireOperator(db, input.userId, 'delete tools');
  const name = requireToolName(input.name);
  const row = await toolRow(db, name);
  if (!row) throw new AssistantNotFoundError('name', `no tool "${name}"`);
  await removeWorkflow(api, row.workflow_id);
  await db.query(`DELETE FROM assistant.built_tools WHERE name = $1`, [name]);
  return { name, deleted: true, result: `Deleted the tool "${name}" and its workflow.` };
}

/** For run_tool: a live tool's workflow and its inputs, checked against the spec (types converted, none missing). */
export async function toolCall(
  db: Queryable,
  input: { name: unknown; input: unknown },
): Promise<Record<string, string | number | boolean>> {
  const name = requireToolName(input.name);
  const row = await toolRow(db, name);
  if (!row || row.status !== 'active') {
    throw new AssistantNotFoundError('name', `no live tool "${name}" (list_tools shows them)`);
  }
  let given: unknown = input.input ?? {};
  if (typeof given === 'string') {
    try {
      given = given.trim() === '' ? {} : (JSON.parse(given) as unknown);
    } catch {
      throw new AssistantInputError('input', 'must be a JSON object of the tool\'s inputs, e.g. {"city": "Paris"}');
    }
  }
  if (typeof given !== 'object' || given === null || Array.isArray(given)) {
    throw new AssistantInputError('input', "must be a JSON object of the tool's inputs");
  }
  const values = given as Record<string, unknown>;
  const known = new Set(row.spec.inputs.map((entry) => entry.name));
  const unknown = Object.keys(values).filter((key) => !known.has(key));
  if (unknown.length > 0) throw new AssistantInputError('input', `"${unknown[0]}" is not an input of "${name}"`);
  const call: Record<string, string | number | boolean> = { [WORKFLOW_FIELD]: row.workflow_id };
  for (const entry of row.spec.inputs) {
    const value = values[entry.name];
    if (value === undefined || value === null || value === '') {
      throw new AssistantInputError(`input.${entry.name}`, `is missing: ${entry.description}`);
    }
    if (entry.type === 'number') {
      const number = typeof value === 'number' ? value : Number(value);
      if (!Number.isFinite(number)) throw new AssistantInputError(`input.${entry.name}`, 'must be a number');
      call[entry.name] = number;
    } else if (entry.type === 'boolean') {
      if (value !== true && value !== false && value !== 'true' && value !== 'false') {
        throw new AssistantInputError(`input.${entry.name}`, 'must be true or false');
      }
      call[entry.name] = value === true || value === 'true';
    } else call[entry.name] = String(value);
  }
  return call;
}
