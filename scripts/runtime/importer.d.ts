// Types of importer.js (plain CommonJS so the n8n Docker image can run it with bare node).
import type { N8nCredential } from './credential-templates';

export interface ShippedWorkflow {
  id: string;
  file: string;
  json: Record<string, unknown> & { id: string; name: string };
}

export interface SyncOptions {
  workflows: ShippedWorkflow[];
  credentials: N8nCredential[];
  stateFile?: string;
  hashKey?: string;
  runCli(args: string[]): Promise<unknown>;
  stagingDir: string;
  log?: (line: string) => void;
  now?: Date;
}

export interface SyncResult {
  importedWorkflows: string[];
  keptCopies: Array<{ of: string; id: string; name: string }>;
  unchangedWorkflows: string[];
  writtenCredentials: Array<{ id: string; name: string; created: boolean }>;
}

export const STATE_FORMAT: number;
export function syncIntoN8n(options: SyncOptions): Promise<SyncResult>;
export function editableForm(workflow: Record<string, unknown>): unknown;
export function workflowVersion(json: unknown, file: string): number;
export function readState(file: string | undefined): {
  format: number;
  workflows: Record<string, { version: number; hash: string | null; importedAt?: string }>;
  credentials: Record<string, string>;
};
