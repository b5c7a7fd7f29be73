// Approvals are enforced in every tool that changes something, brings outside text or fetches a URL: its workflow
// runs the approval gate first, naming itself as the registry does, and lets the call through only when the gate
// grants it; the agent's routers and the experts give those tools what the gate needs (the turn, the channel, the chat). Tools
// that ask themselves and delegations are left out (an expert's tools run the gate themselves).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runsApprovalGate, TOOL_REGISTRY } from '../../assistant/src/tools/registry';
import { TOOL_ROUTERS } from '../../assistant/src/tools/routers';

interface Node {
  name: string;
  type: string;
  parameters: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
}
interface Workflow {
  id: string;
  nodes: Node[];
  connections: Record<string, { main: { node: string }[][] }>;
}

const GATE_ID = 'asstApproveGate1';
const read = (file: string): Workflow =>
  JSON.parse(readFileSync(path.join(__dirname, '..', '..', 'workflows', file), 'utf8')) as Workflow;
const gated = TOOL_REGISTRY.filter(runsApprovalGate);
/** A click looks first at the form it would send: the gate is given that beside the call's inputs. */
const TRIGGER = "$('When Called by the Agent').first().json";
const LOOKS_FIRST: Record<string, { node: string; callInputs: string }> = {
  browser_click: {
    node: 'Look at the Click',
    callInputs: `={{ { ...${TRIGGER}, sends_form: $json.sends_form, sign_in: $json.sign_in } }}`,
  },
};
const targets = (workflow: Workflow, from: string, output = 0) =>
  (workflow.connections[from]?.main[output] ?? []).map((link) => link.node);

describe('the approval gate', () => {
  it('guards every tool that writes, acts outside, destroys, brings outside text or fetches a URL', () => {
    expect(gated.map((tool) => tool.name)).toEqual(
      expect.arrayContaining(['delete_tool', 'remember_memory', 'web_search', 'read_page', 'browser_open', 'run_tool']),
    );
    for (const tool of gated) {
      const workflow = read(tool.workflow.file);
      const trigger = workflow.nodes.find((node) => node.type === 'n8n-nodes-base.executeWorkflowTrigger')!;
      const looks = LOOKS_FIRST[tool.name];
      expect(targets(workflow, trigger.name), tool.name).toEqual([looks?.node ?? 'Approval Gate']);
      if (looks) expect(targets(workflow, looks.node), tool.name).toEqual(['Approval Gate']);
      const gate = workflow.nodes.find((node) => node.name === 'Approval Gate')!;
      expect(gate.parameters.workflowId.value, tool.name).toBe(GATE_ID);
      expect(gate.parameters.workflowInputs.value.tool, tool.name).toBe(tool.name);
      expect(gate.parameters.workflowInputs.value.call_inputs, tool.name).toBe(looks?.callInputs ?? '={{ $json }}');
      expect(targets(workflow, 'Approval Gate'), tool.name).toEqual(['Approved?']);
      const approved = workflow.nodes.find((node) => node.name === 'Approved?')!;
      expect(approved.parameters.conditions.conditions, tool.name).toEqual([
        expect.objectContaining({ leftValue: '={{ $json.approval }}', rightValue: 'granted' }),
      ]);
      expect(targets(workflow, 'Approved?', 1), tool.name).toEqual(['Say Not Done']);
      const inputs = trigger.parameters.workflowInputs.values.map((value: { name: string }) => value.name);
      expect(inputs, tool.name).toEqual(
        expect.arrayContaining(['user_id', 'turn_id', 'channel', 'chat_id', 'deadline']),
      );
    }
  });

  it("gives a gated tool time to wait for the yes: its own limit and the gate's 660 s (the reliability e2e's rule)", () => {
    for (const tool of gated) {
      const { settings } = read(tool.workflow.file) as Workflow & { settings: { executionTimeout: number } };
      expect([tool.name, settings.executionTimeout]).toEqual([tool.name, expect.any(Number)]);
      expect(settings.executionTimeout, tool.name).toBeGreaterThanOrEqual(660 + 300);
    }
  });

  it('lets a click through only with the form it was approved for', () => {
    const click = read('assistant-tool-browser-click.json').nodes.find((node) => node.name === 'Click the Element')!;
    expect(click.parameters).toMatchObject({
      operation: 'click',
      checkForm: true,
      expectForm: "={{ $('Look at the Click').first().json.form_signature }}",
    });
  });

  it('is given what it needs by the agent and the experts (the turn it marks, the channel it asks on)', () => {
    const gatedIds = new Set(gated.map((tool) => tool.workflow.id));
    // The agent reaches its tools through its routers (issue 41), which pass on the turn the agent gives them.
    const routers = [...new Set(gated.map((tool) => TOOL_ROUTERS[tool.group].workflow.file))];
    const callers = [...routers, 'assistant-expert-planner.json', 'assistant-expert-researcher.json'];
    for (const file of callers) {
      const calls = read(file).nodes.filter((node) => gatedIds.has(node.parameters.workflowId?.value));
      expect(calls.length, file).toBeGreaterThan(0);
      for (const node of calls) {
        expect(Object.keys(node.parameters.workflowInputs.value), `${file}: ${node.name}`).toEqual(
          expect.arrayContaining(['user_id', 'turn_id', 'channel', 'chat_id', 'deadline']),
        );
      }
    }
  });

  it('asks, then settles on the answer, in its own workflow', () => {
    const gate = read('assistant-approval-gate.json');
    expect(gate.id).toBe(GATE_ID);
    expect(targets(gate, 'Ask First?', 0)).toEqual(['Ask for Approval']);
    expect(targets(gate, 'Ask for Approval')).toEqual(['Settle Approval']);
    expect(targets(gate, 'Ask First?', 1)).toEqual(['No Question Needed']);
    const ask = gate.nodes.find((node) => node.name === 'Ask for Approval')!;
    expect(ask.parameters.workflowInputs.value.kind).toBe('approval');
  });

  it('puts a call under the judge rule to the Judge first, and weighs its answer in code (an error asks)', () => {
    const gate = read('assistant-approval-gate.json');
    expect(targets(gate, 'Decide Approval')).toEqual(['Ask the Judge First?']);
    expect(targets(gate, 'Ask the Judge First?', 0)).toEqual(['Ask the Judge']);
    expect(targets(gate, 'Ask the Judge First?', 1)).toEqual(['Ask First?']);
    expect(targets(gate, 'Ask the Judge')).toEqual(["Weigh the Judge's Answer"]);
    expect(targets(gate, "Weigh the Judge's Answer")).toEqual(['Ask First?']);
    const node = (name: string) => gate.nodes.find((found) => found.name === name)! as Node & { onError?: string };
    expect(node('Ask the Judge').onError).toBe('continueRegularOutput');
    expect(node('Ask the Judge').parameters.questions.question).toEqual([
      { name: 'ask', type: 'noul', instructions: '={{ $json.judge_question }}' },
    ]);
    expect(node("Weigh the Judge's Answer").parameters).toMatchObject({
      operation: 'weighApproval',
      probability: "={{ $json.answers?.ask?.noul ?? '' }}",
    });
  });
});
