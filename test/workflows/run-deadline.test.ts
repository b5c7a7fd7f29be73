// Hard deadlines: the agent passes its run's deadline (Load Context's) to every router and each router to every tool
// sub-workflow it runs, an expert passes the one it was given to its own tools, and every node that waits inside a
// tool (a browser step, Wait for Answer) and every hand-off to the code and question workflows gets it. Pure JSON
// checks, no n8n; a tool added without the deadline fails here.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { readWorkflowFiles } from '../../scripts/runtime/workflow-files';

interface WorkflowNode {
  type: string;
  name: string;
  parameters: Record<string, unknown> & {
    workflowId?: { value?: string };
    workflowInputs?: { value?: Record<string, string>; schema?: Array<{ id: string }>; values?: never };
  };
}
interface Workflow {
  id: string;
  name: string;
  nodes: WorkflowNode[];
}

const workflows = readWorkflowFiles([path.join(__dirname, '..', '..', 'workflows')]).map(
  (file) => JSON.parse(readFileSync(file.file, 'utf8')) as Workflow,
);
const byId = new Map(workflows.map((workflow) => [workflow.id, workflow]));
const trigger = (workflow: Workflow) =>
  workflow.nodes.find((node) => node.type === 'n8n-nodes-base.executeWorkflowTrigger');
const declaredInputs = (workflow: Workflow) =>
  (
    (trigger(workflow)?.parameters.workflowInputs as { values?: Array<{ name: string }> } | undefined)?.values ?? []
  ).map((input) => input.name);
const deadlineFrom = (source: string) => `={{ $('${source}').first().json.deadline }}`;

const TOOL_NODE = '@n8n/n8n-nodes-langchain.toolWorkflow';
const CALL_NODE = 'n8n-nodes-base.executeWorkflow';
const HANDOFFS = new Set(['asstAskUser00001', 'asstBrowserCode1']);
/** Callers whose tools run outside a run with a deadline (the MCP server). */
const WITHOUT_RUN = new Set(['asstMcpServer001']);

/** Each calling node of a workflow that must pass the deadline, with where the deadline comes from. */
function deadlineCalls(workflow: Workflow): Array<{ node: WorkflowNode; source: string }> {
  const source = workflow.id === 'assistantAgent01' ? 'Load Context' : trigger(workflow)?.name;
  if (!source || WITHOUT_RUN.has(workflow.id)) return [];
  return workflow.nodes
    .filter(
      (node) =>
        node.type === TOOL_NODE || (node.type === CALL_NODE && HANDOFFS.has(node.parameters.workflowId?.value ?? '')),
    )
    .map((node) => ({ node, source }));
}

describe('the run deadline reaches every tool', () => {
  const agent = byId.get('assistantAgent01')!;

  it('the agent passes Load Context’s deadline to each of its router tools, and each router declares it', () => {
    const tools = agent.nodes.filter((node) => node.type === TOOL_NODE);
    expect(tools.length).toBe(7);
    for (const tool of tools) {
      const inputs = tool.parameters.workflowInputs!;
      expect(inputs.value?.deadline, tool.name).toBe(deadlineFrom('Load Context'));
      expect(
        inputs.schema?.some((column) => column.id === 'deadline'),
        tool.name,
      ).toBe(true);
      const target = byId.get(tool.parameters.workflowId!.value!);
      expect(target, tool.name).toBeDefined();
      expect(declaredInputs(target!), `${target!.name} declares the deadline input`).toContain('deadline');
    }
  });

  it('each router passes the deadline it was given to every tool it runs, and each tool declares it', () => {
    const routerIds = new Set(
      agent.nodes.filter((node) => node.type === TOOL_NODE).map((node) => node.parameters.workflowId!.value!),
    );
    const calls = [...routerIds].flatMap((id) =>
      byId
        .get(id)!
        .nodes.filter((node) => node.type === CALL_NODE)
        .map((node) => ({ router: byId.get(id)!, node })),
    );
    expect(calls.length).toBeGreaterThan(40);
    for (const { router, node } of calls) {
      expect(node.parameters.workflowInputs?.value?.deadline, `${router.name}: ${node.name}`).toBe(
        deadlineFrom(trigger(router)!.name),
      );
      const target = byId.get(node.parameters.workflowId!.value!)!;
      expect(declaredInputs(target), `${target.name} declares the deadline input`).toContain('deadline');
    }
  });

  it('experts and tools pass the deadline they were given to their tools and hand-offs', () => {
    const calls = workflows.filter((workflow) => workflow !== agent).flatMap(deadlineCalls);
    expect(calls.length).toBeGreaterThan(15);
    for (const { node, source } of calls) {
      expect(node.parameters.workflowInputs?.value?.deadline, node.name).toBe(deadlineFrom(source));
    }
    for (const handoff of HANDOFFS) expect(declaredInputs(byId.get(handoff)!)).toContain('deadline');
  });

  it('every node that waits in a tool takes the deadline of its run', () => {
    const waiting = workflows.flatMap((workflow) =>
      workflow.nodes
        .filter(
          (node) =>
            (node.type === 'n8n-nodes-judge-assistant.assistantBrowser' &&
              !['codeRequest', 'close'].includes(node.parameters.operation as string)) ||
            (node.type === 'n8n-nodes-judge-assistant.assistantQuestions' &&
              node.parameters.operation === 'waitForAnswer'),
        )
        .map((node) => ({ workflow, node })),
    );
    expect(waiting.length).toBeGreaterThanOrEqual(9);
    for (const { workflow, node } of waiting) {
      expect(node.parameters.deadline, `${workflow.name}: ${node.name}`).toBe(deadlineFrom(trigger(workflow)!.name));
    }
  });
});
