// Failure awareness needs every workflow to report its failures: each one in workflows/ names the error workflow
// (settings.errorWorkflow), which records them with its Error Trigger.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { readWorkflowFiles } from '../../scripts/runtime/workflow-files';

const ERROR_WORKFLOW_ID = 'asstErrorWorkfl1';
const workflows = readWorkflowFiles([path.join(__dirname, '..', '..', 'workflows')]).map((file) => ({
  file: file.file,
  json: JSON.parse(readFileSync(file.file, 'utf8')) as {
    id: string;
    nodes: Array<{ type: string; name: string }>;
    settings: Record<string, unknown>;
  },
}));

describe('the error workflow', () => {
  it('exists, starts with an Error Trigger and records the failure', () => {
    const error = workflows.find((w) => w.json.id === ERROR_WORKFLOW_ID);
    expect(error, 'workflows/assistant-error.json').toBeDefined();
    expect(error!.json.nodes.map((n) => n.type)).toEqual(
      expect.arrayContaining(['n8n-nodes-base.errorTrigger', 'n8n-nodes-judge-assistant.assistantFailures']),
    );
  });

  it('is set as settings.errorWorkflow on every other workflow', () => {
    const missing = workflows
      .filter((w) => w.json.id !== ERROR_WORKFLOW_ID && w.json.settings?.errorWorkflow !== ERROR_WORKFLOW_ID)
      .map((w) => path.basename(w.file));
    expect(missing).toEqual([]);
    expect(workflows.length).toBeGreaterThan(30);
  });
});
