// Installing and removing catalogue experts. Installing needs the operator's yes: the install tool asks them an
// approval question (a pending question of kind "approval", on their own channel) and only an answered yes to that
// very question lets installExpert create the expert's workflow through n8n's public API, publish it and register it.
// The CLI is the operator at the shell, so it installs without asking.
import type { Queryable } from '../storage/db';
import { AssistantInputError, AssistantNotFoundError } from '../errors';
import { isApproval, requireApprovalQuestion, requireOperator } from '../pending/approvals';
import { loadCatalogue, type CatalogueExpert } from './catalogue';
import type { WorkflowApi } from '../n8n/workflow-api';
import { removeWorkflow } from '../n8n/remove-workflow';
import { EXPERT_TAG_IDS, MAIN_AGENT_WORKFLOW_ID, renderExpertWorkflow } from './expert-workflow';
import { SHIPPED_EXPERTS } from './registry';

function requireCatalogueId(value: unknown): string {
  const id = typeof value === 'string' ? value.trim().toLowerCase() : '';
  if (id === '') throw new AssistantInputError('expertId', 'is missing: give a catalogue id, e.g. travel-planner');
  if (SHIPPED_EXPERTS.some((expert) => expert.id === id)) {
    throw new AssistantInputError('expertId', `"${id}" is a shipped expert: it is always installed`);
  }
  return id;
}

function catalogueEntry(expertIdInput: unknown): CatalogueExpert {
  const id = requireCatalogueId(expertIdInput);
  const entry = loadCatalogue().find((expert) => expert.id === id);
  if (!entry) {
    throw new AssistantNotFoundError('expertId', `no expert "${id}" in the catalogue (list_experts shows them)`);
  }
  return entry;
}

async function installedRow(db: Queryable, id: string) {
  const found = await db.query<{ source: string; workflow_id: string | null; model: string | null }>(
    'SELECT source, workflow_id, model FROM assistant.experts WHERE id = $1',
    [id],
  );
  return found.rows[0];
}

/** The question the operator is asked before an install: what the expert is, which tools and model it would get. */
export async function approvalQuestion(
  db: Queryable,
  input: { userId: unknown; expertId: unknown },
): Promise<{ expertId: string; question: string }> {
  await requireOperator(db, input.userId, 'install experts');
  const entry = catalogueEntry(input.expertId);
  if (await installedRow(db, entry.id)) {
    throw new AssistantInputError('expertId', `"${entry.id}" is already installed`);
  }
  const question =
    `Install the expert "${entry.name}" (${entry.id}) from the catalogue? ${entry.description} ` +
    `Tools: ${entry.tools.join(', ')}. Suggested model: ${entry.suggestedModel.model} (${entry.suggestedModel.provider}); ` +
    'it runs on the chat model setting until you give it its own. Answer yes or no.';
  return { expertId: entry.id, question };
}

export interface InstallResult {
  expertId: string;
  installed: boolean;
  workflowId?: string;
  result: string;
}

async function createAndRegister(db: Queryable, api: WorkflowApi, entry: CatalogueExpert): Promise<InstallResult> {
  if (await installedRow(db, entry.id)) {
    return { expertId: entry.id, installed: false, result: `"${entry.id}" is already installed.` };
  }
  const workflow = renderExpertWorkflow(entry, await api.getWorkflow(MAIN_AGENT_WORKFLOW_ID));
  const { id: workflowId } = await api.createWorkflow(workflow);
  try {
    await api.setWorkflowTags(workflowId, EXPERT_TAG_IDS);
    await api.publishWorkflow(workflowId);
    const inserted = await db.query(
      `INSERT INTO assistant.experts (id, source, workflow_id) VALUES ($1, 'catalogue', $2) ON CONFLICT (id) DO NOTHING`,
      [entry.id, workflowId],
    );
    if (inserted.rowCount === 0) throw new AssistantInputError('expertId', `"${entry.id}" was installed meanwhile`);
  } catch (error) {
    // Nothing half-installed stays behind: the workflow goes with the failure.
    await removeWorkflow(api, workflowId).catch(() => false);
    throw error;
  }
  return {
    expertId: entry.id,
    installed: true,
    workflowId,
    result: `Installed the expert "${entry.name}" (${entry.id}): ask it with ask_expert. Its workflow is ${workflowId}.`,
  };
}

/**
 * Installs a catalogue expert once the operator answered its approval question: only a yes creates, tags and
 * publishes its workflow and registers it; any other answer, or none, installs nothing.
 */
export async function installApprovedExpert(
  db: Queryable,
  api: WorkflowApi,
  input: { expertId: unknown; questionId: unknown; answer: unknown; status?: unknown },
): Promise<InstallResult> {
  const entry = catalogueEntry(input.expertId);
  if (input.status !== undefined && input.status !== 'answered') {
    return {
      expertId: entry.id,
      installed: false,
      result: `Not installed: the operator did not answer in time. Nothing was changed.`,
    };
  }
  await requireApprovalQuestion(db, input.questionId, { marker: `(${entry.id})`, what: `"${entry.id}"` });
  if (!isApproval(input.answer)) {
    return {
      expertId: entry.id,
      installed: false,
      result: `Not installed: the operator did not approve "${entry.id}". Nothing was changed.`,
    };
  }
  return createAndRegister(db, api, entry);
}

/** Installs a catalogue expert at the operator's own command (the CLI), without a question. */
export async function installExpertByOperator(
  db: Queryable,
  api: WorkflowApi,
  expertIdInput: unknown,
): Promise<InstallResult> {
  return createAndRegister(db, api, catalogueEntry(expertIdInput));
}

/** Removes an installed catalogue expert: its workflow from n8n, then its registration. Shipped ones stay. */
export async function removeExpert(
  db: Queryable,
  api: WorkflowApi,
  input: { expertId: unknown; userId?: unknown },
): Promise<{ expertId: string; removed: true; result: string }> {
  if (input.userId !== undefined) await requireOperator(db, input.userId, 'remove experts');
  const id = requireCatalogueId(input.expertId);
  const row = await installedRow(db, id);
  if (!row) throw new AssistantNotFoundError('expertId', `no expert "${id}" is installed`);
  if (row.workflow_id) await removeWorkflow(api, row.workflow_id);
  await db.query(`DELETE FROM assistant.experts WHERE id = $1 AND source = 'catalogue'`, [id]);
  return { expertId: id, removed: true, result: `Removed the expert "${id}" and its workflow.` };
}

export interface ExpertListing {
  installed: Array<{ id: string; name: string; description: string; source: string; model: string | null }>;
  available: Array<{ id: string; name: string; description: string; tools: string[]; suggestedModel: string }>;
}

/** The installed experts (shipped and from the catalogue) and the catalogue entries one could install. */
export async function listExperts(db: Queryable): Promise<ExpertListing> {
  const rows = (
    await db.query<{ id: string; source: string; model: string | null }>(
      'SELECT id, source, model FROM assistant.experts ORDER BY source DESC, id',
    )
  ).rows;
  const catalogue = loadCatalogue();
  const describe = (id: string) =>
    SHIPPED_EXPERTS.find((expert) => expert.id === id) ?? catalogue.find((expert) => expert.id === id);
  const installedIds = new Set(rows.map((row) => row.id));
  return {
    installed: rows.map((row) => ({
      id: row.id,
      name: describe(row.id)?.name ?? row.id,
      description: describe(row.id)?.description ?? '',
      source: row.source,
      model: row.model,
    })),
    available: catalogue
      .filter((expert) => !installedIds.has(expert.id))
      .map((expert) => ({
        id: expert.id,
        name: expert.name,
        description: expert.description,
        tools: expert.tools,
        suggestedModel: `${expert.suggestedModel.model} (${expert.suggestedModel.provider})`,
      })),
  };
}

/** The workflow to run for ask_expert: any installed expert, shipped or from the catalogue. */
export async function expertWorkflow(
  db: Queryable,
  expertIdInput: unknown,
): Promise<{ expertId: string; workflowId: string }> {
  const id = typeof expertIdInput === 'string' ? expertIdInput.trim().toLowerCase() : '';
  if (id === '') throw new AssistantInputError('expertId', 'is missing: give an installed expert id (list_experts)');
  const row = await installedRow(db, id);
  const workflowId = row?.workflow_id ?? SHIPPED_EXPERTS.find((expert) => expert.id === id)?.workflowId;
  if (!row || !workflowId) {
    throw new AssistantNotFoundError('expertId', `no expert "${id}" is installed (list_experts shows the catalogue)`);
  }
  return { expertId: id, workflowId };
}
