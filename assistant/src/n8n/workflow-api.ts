// n8n's workflows as its public API takes and gives them, and what the assistant needs of that API.
export interface WorkflowNode {
  id: string;
  name: string;
  type: string;
  typeVersion: number;
  position: [number, number];
  parameters: Record<string, unknown>;
  credentials?: Record<string, { id: string; name: string }>;
  [key: string]: unknown;
}

export interface WorkflowJson {
  id?: string;
  name: string;
  nodes: WorkflowNode[];
  connections: Record<string, Record<string, Array<Array<{ node: string; type: string; index: number }>>>>;
  settings?: Record<string, unknown>;
  [key: string]: unknown;
}

/** What the assistant needs of n8n's public API (the nodes' transport and the CLIs each provide one). */
export interface WorkflowApi {
  getWorkflow(id: string): Promise<WorkflowJson>;
  createWorkflow(workflow: WorkflowJson): Promise<{ id: string }>;
  setWorkflowTags(id: string, tagIds: readonly string[]): Promise<void>;
  publishWorkflow(id: string): Promise<void>;
  unpublishWorkflow(id: string): Promise<void>;
  /** Deletes the workflow; false when n8n has no such workflow (already gone). */
  deleteWorkflow(id: string): Promise<boolean>;
  /** The credential of this name (id, name, type), or undefined when n8n has none by that name. */
  findCredential(name: string): Promise<{ id: string; name: string; type: string } | undefined>;
}

/** One call of n8n's public API: method, path under /api/v1, JSON body; null for a 404 when `allow404`. */
export type ApiCall = (
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  path: string,
  body?: unknown,
  allow404?: boolean,
) => Promise<unknown>;

/** The WorkflowApi over a transport: the paths and shapes of n8n's public API, in one place. */
export function workflowApiOver(call: ApiCall): WorkflowApi {
  const workflow = (id: string) => `/workflows/${encodeURIComponent(id)}`;
  return {
    getWorkflow: async (id) => (await call('GET', workflow(id))) as WorkflowJson,
    createWorkflow: async (json) => {
      const created = (await call('POST', '/workflows', json)) as { id?: string } | null;
      if (!created?.id) throw new Error('POST /api/v1/workflows: n8n answered without a workflow id');
      return { id: created.id };
    },
    setWorkflowTags: async (id, tagIds) => {
      await call(
        'PUT',
        `${workflow(id)}/tags`,
        tagIds.map((tagId) => ({ id: tagId })),
      );
    },
    publishWorkflow: async (id) => {
      await call('POST', `${workflow(id)}/publish`, {});
    },
    unpublishWorkflow: async (id) => {
      await call('POST', `${workflow(id)}/unpublish`, {});
    },
    findCredential: async (name) => {
      let cursor: string | undefined;
      do {
        const query = `limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
        const page = (await call('GET', `/credentials?${query}`)) as {
          data?: Array<{ id: string; name: string; type: string }>;
          nextCursor?: string | null;
        } | null;
        const found = page?.data?.find((credential) => credential.name === name);
        if (found) return { id: found.id, name: found.name, type: found.type };
        cursor = page?.nextCursor ?? undefined;
      } while (cursor);
      return undefined;
    },
    deleteWorkflow: async (id) => (await call('DELETE', workflow(id), undefined, true)) !== null,
  };
}
