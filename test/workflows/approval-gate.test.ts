// Approvals are enforced in every tool that changes something, brings outside text or fetches a URL: its workflow
// runs the approval gate first, naming itself as the registry does, and lets the call through only when the gate
// grants it; the agent and the experts give those tools what the gate needs (the turn, the channel, the chat). Tools
// that ask themselves and delegations are left out (an expert's tools run the gate themselves).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runsApprovalGate, TOOL_REGISTRY } from '../../assistant/src/tools/registry';

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
      expect(targets(workflow, trigger.name), tool.name).toEqual(['Approval Gate']);
      const gate = workflow.nodes.find((node) => node.name === 'Approval Gate')!;
      expect(gate.parameters.workflowId.value, tool.name).toBe(GATE_ID);
      expect(gate.parameters.workflowInputs.value.tool, tool.name).toBe(tool.name);
      expect(gate.parameters.workflowInputs.value.call_inputs, tool.name).toBe('={{ $json }}');
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

  it('is given what it needs by the agent and the experts (the turn it marks, the channel it asks on)', () => {
    const gatedIds = new Set(gated.map((tool) => tool.workflow.id));
    const callers = ['assistant-agent.json', 'assistant-expert-planner.json', 'assistant-expert-researcher.json'];
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
});
