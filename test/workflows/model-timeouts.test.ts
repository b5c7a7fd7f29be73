// Timeouts that fit the model: every chat model node's timeout is the modelTimeoutSeconds setting, read from the data
// its workflow already loads; a workflow that calls a model runs long enough for a call at the longest setting and its
// one retry; the webhook entry outlives the longest reply deadline; the ask_expert tool outlives the expert; a pending
// turn is overdue only after the agent workflow's run limit.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { EXPERT_QUESTION_WAIT_SECONDS, EXPERT_RUN_SECONDS } from '../../assistant/src/experts/expert-workflow';
import { MAX_MODEL_TIMEOUT_SECONDS, MAX_REPLY_DEADLINE_SECONDS } from '../../assistant/src/settings/settings';
import { TURN_RUN_LIMIT_SECONDS } from '../../assistant/src/turns/lifecycle';
import { readWorkflowFiles } from '../../scripts/runtime/workflow-files';

interface Workflow {
  id: string;
  nodes: Array<{ type: string; name: string; parameters: Record<string, unknown> }>;
  settings: { executionTimeout?: number };
}

const workflows = readWorkflowFiles([path.join(__dirname, '..', '..', 'workflows')]).map((file) => ({
  name: path.basename(file.file),
  json: JSON.parse(readFileSync(file.file, 'utf8')) as Workflow,
}));
const byFile = (name: string) => workflows.find((workflow) => workflow.name === name)!.json;
const modelNodes = (workflow: Workflow) =>
  workflow.nodes.filter((node) => node.type === '@n8n/n8n-nodes-langchain.lmChatOpenAi');

/** The node each workflow's model reads its settings from, and how (per run, or per item). */
const SETTING_SOURCES: Record<string, string> = {
  'assistant-agent.json': "$('Load Context').first()",
  'assistant-briefing.json': "$('Gather Briefing').first()",
  'assistant-heartbeat.json': "$('Find Nudges').item",
  'assistant-expert-analyst.json': "$('Expert Settings').first()",
  'assistant-expert-planner.json': "$('Expert Settings').first()",
  'assistant-expert-researcher.json': "$('Expert Settings').first()",
};
/** One model call at the longest timeout, its one retry (maxRetries 1), and a minute. */
const MODEL_RUN_SECONDS = 2 * MAX_MODEL_TIMEOUT_SECONDS + 60;

describe('model timeouts', () => {
  it('every chat model node times out after the modelTimeoutSeconds setting, retrying once', () => {
    const withModels = workflows.filter((workflow) => modelNodes(workflow.json).length > 0);
    expect(withModels.map((workflow) => workflow.name).sort()).toEqual(Object.keys(SETTING_SOURCES).sort());
    for (const { name, json } of withModels) {
      for (const node of modelNodes(json)) {
        expect(node.parameters.options, `${name}: ${node.name}`).toEqual({
          maxRetries: 1,
          timeout: `={{ ${SETTING_SOURCES[name]}.json.modelTimeoutSeconds * 1000 }}`,
        });
      }
    }
  });

  it('a workflow that calls a model runs for a call at the longest timeout and its retry', () => {
    expect(MODEL_RUN_SECONDS).toBe(1260);
    for (const name of Object.keys(SETTING_SOURCES)) {
      expect(byFile(name).settings.executionTimeout, name).toBeGreaterThanOrEqual(MODEL_RUN_SECONDS);
    }
    expect(EXPERT_RUN_SECONDS).toBe(MODEL_RUN_SECONDS);
    for (const name of ['analyst', 'planner', 'researcher']) {
      expect(byFile(`assistant-expert-${name}.json`).settings.executionTimeout).toBe(EXPERT_RUN_SECONDS);
    }
  });

  it('callers wait longer than what they wait for', () => {
    expect(byFile('assistant-webhook.json').settings.executionTimeout).toBe(MAX_REPLY_DEADLINE_SECONDS + 30);
    const askExpert = byFile('assistant-tool-ask-expert.json').settings.executionTimeout!;
    expect(askExpert).toBe(EXPERT_RUN_SECONDS + EXPERT_QUESTION_WAIT_SECONDS + 60);
    expect(byFile('assistant-agent.json').settings.executionTimeout).toBeGreaterThan(askExpert);
  });

  it("a turn still pending is failed as overdue only after the agent workflow's own run limit", () => {
    expect(TURN_RUN_LIMIT_SECONDS).toBe(byFile('assistant-agent.json').settings.executionTimeout);
  });
});
