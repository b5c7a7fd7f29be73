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
