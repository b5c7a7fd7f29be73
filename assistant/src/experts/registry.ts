// The experts the main agent delegates to (ask_<expert> {task}): three shipped with the product, each its own
// workflow with its own AI Agent, prompt and tools, and catalogue entries the operator installed. Each may have its
// own model (null: the chatModel setting); its provider is the credential of its workflow's Chat Model node.
import type { Queryable } from '../storage/db';
import { AssistantInputError, AssistantNotFoundError } from '../errors';
import { getInstanceSettings, requireChatModel } from '../settings/settings';
import { splitCaller, withCaller } from '../gateway/caller';

export interface ShippedExpert {
  id: string;
  name: string;
  /** When the main agent should delegate to it (its tool's description). */
  description: string;
  /** Its n8n workflow (workflows/assistant-expert-<id>.json). */
  workflowId: string;
}

export const SHIPPED_EXPERTS: readonly ShippedExpert[] = [
  {
    id: 'researcher',
    name: 'Researcher',
    description: 'Searches the web, reads the pages and answers with sources.',
    workflowId: 'asstExpertResrch',
  },
  {
    id: 'planner',
    name: 'Planner',
    description: 'Plans with tasks, reminders and recurring actions.',
    workflowId: 'asstExpertPlannr',
  },
  {
    id: 'analyst',
    name: 'Analyst',
    description: 'Ranks and filters lists with the Judge, with a probability for each decision.',
    workflowId: 'asstExpertAnalst',
  },
];

/** "default" sets an expert's model back to the chatModel setting. */
export const DEFAULT_MODEL = 'default';

export interface ExpertSettings {
  id: string;
  /** The model its run asks for. */
  model: string;
  /** Whether that is its own model rather than the chatModel setting. */
  ownModel: boolean;
  /** How long one call of its model may take (the modelTimeoutSeconds setting). */
  modelTimeoutSeconds: number;
}

function requireExpertId(value: unknown): string {
  const id = typeof value === 'string' ? value.trim().toLowerCase() : '';
  if (!/^[a-z][a-z0-9-]{1,39}$/.test(id)) {
    throw new AssistantInputError('expertId', 'must be an expert id, e.g. researcher');
  }
  return id;
}

/** What an expert's run uses: its own model, or the chatModel setting. */
export async function expertSettings(db: Queryable, expertIdInput: unknown): Promise<ExpertSettings> {
  const id = requireExpertId(expertIdInput);
  const found = await db.query<{ model: string | null }>('SELECT model FROM assistant.experts WHERE id = $1', [id]);
  if (!found.rows[0]) throw new AssistantNotFoundError('expertId', `no expert "${id}" is installed`);
  const own = found.rows[0].model;
  const { chatModel, modelTimeoutSeconds } = await getInstanceSettings(db);
  const model = withCaller(own ?? chatModel, { job: `expert:${id}` });
  return { id, model, ownModel: own !== null, modelTimeoutSeconds };
}

/** Gives an expert its own model, or ("default") the chatModel setting again. */
export async function setExpertModel(db: Queryable, expertIdInput: unknown, modelInput: unknown) {
  const id = requireExpertId(expertIdInput);
  const model =
    typeof modelInput === 'string' && modelInput.trim().toLowerCase() === DEFAULT_MODEL
      ? null
      : requireChatModel(modelInput, 'model');
  const updated = await db.query('UPDATE assistant.experts SET model = $2 WHERE id = $1', [id, model]);
  if (updated.rowCount === 0) throw new AssistantNotFoundError('expertId', `no expert "${id}" is installed`);
  const settings = await expertSettings(db, id);
  return { ...settings, model: splitCaller(settings.model).model };
}
