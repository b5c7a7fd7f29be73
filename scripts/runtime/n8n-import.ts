// The project into n8n: credentials and workflows through the importer, then the workflows to run activated.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { N8N_API_CREDENTIAL_ID } from 'assistant-core';
import { CREDENTIAL_TEMPLATES_DIR, loadCredentialTemplates } from './credentials';
import { syncIntoN8n, type SyncResult } from './importer';
import { REPO_ROOT, runN8nCli } from './n8n';
import { TEST_ENCRYPTION_KEY } from './n8n-env';
import {
  needsPrivateIds,
  readPrivateWebhookIds,
  withPrivateWebhookIds,
  writePrivateWebhookIds,
} from './private-webhook-ids';
import type { ImportedWorkflow, Log, Stack, StackOptions } from './stack-types';
import { readWorkflowFiles } from './workflow-files';

export const WORKFLOWS_DIR = path.join(REPO_ROOT, 'workflows');

/**
 * Credentials and workflows into n8n (importer.js): without an import state file everything is imported (a fresh
 * n8n); with one, only what is missing, newer in the repo, or (credentials) rendered differently, and an operator's
 * edit of a workflow about to be replaced is kept as a copy. Returns every workflow file read and what happened.
 */
export async function importIntoN8n(
  options: StackOptions,
  userFolder: string,
  processEnv: NodeJS.ProcessEnv,
  log: Log,
): Promise<{ workflows: ImportedWorkflow[]; sync: SyncResult }> {
  const credentials = loadCredentialTemplates(options.credentialDirs ?? [CREDENTIAL_TEMPLATES_DIR], {
    ...process.env,
    ...(options.env ?? {}),
    ...(options.credentialEnv ?? {}),
  });
  const workflowDirs = [...(options.workflowDirs ?? [WORKFLOWS_DIR]), ...(options.extraWorkflowDirs ?? [])];
  const workflows = readWorkflowFiles(workflowDirs);
  // What is imported: the file, or (for Telegram Triggers) a copy with this installation's private node ids.
  const privateIds = readPrivateWebhookIds(options.privateWebhookIdsFile);
  const shipped = workflows.map((w) => {
    const json = JSON.parse(readFileSync(w.file, 'utf8'));
    return { id: w.id, file: w.file, json: needsPrivateIds(json) ? withPrivateWebhookIds(json, privateIds) : json };
  });
  if (options.privateWebhookIdsFile) writePrivateWebhookIds(options.privateWebhookIdsFile, privateIds);
  const sync = await syncIntoN8n({
    workflows: shipped,
    credentials,
    stateFile: options.importStateFile,
    hashKey: options.encryptionKey ?? TEST_ENCRYPTION_KEY,
    runCli: (args) => runN8nCli(args, processEnv),
    stagingDir: userFolder,
    log,
  });
  return { workflows, sync };
}

/**
 * The "n8n API" credential (the seed's workflow tool API key): known only once n8n runs and the key exists, so it is
 * written after the start, through the same importer (only when it changed).
 */
export async function importApiCredential(
  options: StackOptions,
  userFolder: string,
  processEnv: NodeJS.ProcessEnv,
  target: { apiKey: string; n8nUrl: string },
  log: Log,
): Promise<void> {
  await syncIntoN8n({
    workflows: [],
    credentials: [
      {
        id: N8N_API_CREDENTIAL_ID,
        name: 'Assistant n8n API',
        type: 'n8nApi',
        data: { apiKey: target.apiKey, baseUrl: `${target.n8nUrl}/api/v1` },
      },
    ],
    stateFile: options.importStateFile,
    hashKey: options.encryptionKey ?? TEST_ENCRYPTION_KEY,
    runCli: (args) => runN8nCli(args, processEnv),
    stagingDir: userFolder,
    log,
  });
}

/** Activates the workflows `options.activate` names (default: the triggered ones) and marks them active. */
export async function activateWorkflows(
  options: StackOptions,
  workflows: ImportedWorkflow[],
  sync: SyncResult,
  api: Stack['api'],
  log: Log,
): Promise<void> {
  const mode = options.activate ?? 'triggered';
  for (const workflow of workflows) {
    const wanted = Array.isArray(mode)
      ? mode.includes(workflow.id)
      : mode === 'all' || (mode === 'triggered' && workflow.triggered);
    if (!wanted) continue;
    // A kept instance: only what this start imported (the import deactivates it); the rest stays as the operator
    // left it, deactivated ones included.
    if (options.importStateFile && !sync.importedWorkflows.includes(workflow.id)) continue;
    try {
      await api(`/workflows/${workflow.id}/activate`, { method: 'POST' });
    } catch (error) {
      throw new Error(`activating workflow "${workflow.name}" (${workflow.file}): ${(error as Error).message}`);
    }
    workflow.active = true;
  }
  const activeCount = workflows.filter((w) => w.active).length;
  if (activeCount > 0) log(`activated ${activeCount} workflow(s)`);
}
