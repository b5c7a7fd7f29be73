// Deleting a workflow that may be published: n8n refuses that (409) until it is unpublished, and unpublishing
// finishes in the background ("still being unpublished"), so the delete is tried again for a while.
import type { WorkflowApi } from './workflow-api';

const statusOf = (error: unknown): number | undefined => (error as { status?: number } | null)?.status ?? undefined;

/** Deletes the workflow, unpublishing it first when n8n asks for that; false when it was already gone. */
export async function removeWorkflow(
  api: WorkflowApi,
  id: string,
  options: { attempts?: number; delayMs?: number } = {},
): Promise<boolean> {
  try {
    return await api.deleteWorkflow(id);
  } catch (error) {
    if (statusOf(error) !== 409) throw error;
  }
  await api.unpublishWorkflow(id);
  const attempts = options.attempts ?? 40;
  for (let attempt = 1; ; attempt++) {
    try {
      return await api.deleteWorkflow(id);
    } catch (error) {
      if (statusOf(error) !== 409 || attempt >= attempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, options.delayMs ?? 250));
    }
  }
}
