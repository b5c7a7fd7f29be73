// Types of private-webhook-ids.js (plain CommonJS, like workflow-files.js).

export interface PrivateNodeIds {
  id: string;
  webhookId: string;
}

/** "<workflow id>:<committed node id>" → the installation's private ids. */
export type PrivateWebhookIds = Record<string, PrivateNodeIds>;

export interface WorkflowJson {
  id: string;
  nodes: Array<{ id?: string; name?: string; type?: string; webhookId?: string; [key: string]: unknown }>;
  [key: string]: unknown;
}

export const SECRET_FROM_IDS_NODE_TYPES: Set<string>;
export function needsPrivateIds(workflow: WorkflowJson): boolean;
export function withPrivateWebhookIds<W extends WorkflowJson>(workflow: W, ids: PrivateWebhookIds): W;
export function readPrivateWebhookIds(file: string | undefined): PrivateWebhookIds;
export function writePrivateWebhookIds(file: string, ids: PrivateWebhookIds): void;
