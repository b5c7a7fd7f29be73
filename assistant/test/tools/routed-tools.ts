// The main agent's tools as its workflows really hold them (issue 41, part 2): each router tool node of
// workflows/assistant-agent.json runs a router workflow whose Switch has one rule per tool, wired to the Execute
// Workflow node that runs that tool's workflow. Tests read tools from here, so a renamed or unwired tool breaks them.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const WORKFLOWS = path.join(__dirname, '..', '..', '..', 'workflows');
const TOOL_NODE_TYPE = '@n8n/n8n-nodes-langchain.toolWorkflow';

interface Node {
  name: string;
  type: string;
  parameters: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
}
interface Workflow {
  id: string;
  nodes: Node[];
  connections: Record<string, { main?: Array<Array<{ node: string }>> }>;
}

const byId = (): Map<string, Workflow> =>
  new Map(
    readdirSync(WORKFLOWS)
      .filter((file) => file.endsWith('.json'))
      .map((file) => JSON.parse(readFileSync(path.join(WORKFLOWS, file), 'utf8')) as Workflow)
      .map((workflow) => [workflow.id, workflow]),
  );

/** One routed tool: its name (the Switch rule), the router tool it is reached by, and the workflow id it runs. */
export interface RoutedTool {
  name: string;
  router: string;
  workflowId: string;
}

/** Every tool the agent reaches through a router, in the routers' order. */
export function routedTools(agentFile = 'assistant-agent.json'): RoutedTool[] {
  const workflows = byId();
  const agent = JSON.parse(readFileSync(path.join(WORKFLOWS, agentFile), 'utf8')) as Workflow;
  return agent.nodes
    .filter((node) => node.type === TOOL_NODE_TYPE)
    .flatMap((router) => {
      const workflow = workflows.get(router.parameters.workflowId?.value);
      const which = workflow?.nodes.find((node) => node.type === 'n8n-nodes-base.switch');
      if (!workflow || !which) return [];
      const outputs = workflow.connections[which.name]?.main ?? [];
      return (which.parameters.rules.values as Array<{ outputKey: string }>).map((rule, output) => {
        const target = workflow.nodes.find((node) => node.name === outputs[output]?.[0]?.node);
        return { name: rule.outputKey, router: router.name, workflowId: target?.parameters.workflowId?.value ?? '' };
      });
    });
}
