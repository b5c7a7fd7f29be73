// Writes the main agent's router tools (issue 41, part 2) from the tool registry: one workflow per group
// (workflows/assistant-tools-<router>.json) and the agent's 7 router tool nodes in workflows/assistant-agent.json (its
// other nodes kept). A file whose content changes gets its meta.version raised; then run
// `npx tsx scripts/workflow-versions.ts`. test/workflows/tool-routers.test.ts holds the files to this output.
//   npx tsx scripts/tool-routers.ts
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { format, resolveConfig } from 'prettier';
import { TOOL_GROUPS, TOOL_REGISTRY, type ToolGroup } from '../assistant/src/tools/registry';
import { routerToolNode, routerWorkflow, TOOL_NODE_TYPE } from '../assistant/src/tools/router-workflows';
import { groupTools, TOOL_ROUTERS } from '../assistant/src/tools/routers';

export const WORKFLOWS = path.join(__dirname, '..', 'workflows');
const AGENT_FILE = 'assistant-agent.json';
const AGENT = 'Assistant Agent';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const read = (file: string): Json => JSON.parse(readFileSync(path.join(WORKFLOWS, file), 'utf8')) as Json;
const readIfThere = (file: string): Json | undefined => {
  try {
    return read(file);
  } catch {
    return undefined;
  }
};

/** The longest executionTimeout of the group's tool workflows: what its router waits for at most. */
export function routerTimeout(group: ToolGroup): number {
  return Math.max(...groupTools(group).map((tool) => Number(read(tool.workflow.file).settings.executionTimeout)));
}

/** Where the router tool nodes sit: two rows under the agent beside the Chat Model, inside the agent's sticky note. */
const routerPosition = (index: number): [number, number] =>
  index < 4 ? [1920 + index * 160, 560] : [1760 + (index - 4) * 160, 720];

/** The agent workflow with its tool nodes replaced by the routers (and their connections to the agent). */
export function agentWithRouters(agent: Json): Json {
  const toolNames = new Set<string>([
    ...TOOL_REGISTRY.map((tool) => tool.name),
    ...TOOL_GROUPS.map((group) => TOOL_ROUTERS[group].name),
  ]);
  const isTool = (node: Json) => node.type === TOOL_NODE_TYPE && toolNames.has(node.name);
  const kept = (agent.nodes as Json[]).filter((node) => !isTool(node));
  const routers = TOOL_GROUPS.map((group, index) => routerToolNode(group, routerPosition(index)));
  const connections = Object.fromEntries(
    Object.entries(agent.connections as Json).filter(([from]) => !toolNames.has(from)),
  );
  for (const router of routers) connections[router.name] = { ai_tool: [[{ node: AGENT, type: 'ai_tool', index: 0 }]] };
  return { ...agent, nodes: [...kept, ...routers], connections };
}

/** What each generated file should hold, without the version (the version is compared apart). */
export function generatedFiles(): Map<string, Json> {
  const files = new Map<string, Json>();
  for (const group of TOOL_GROUPS) {
    files.set(TOOL_ROUTERS[group].workflow.file, routerWorkflow(group, routerTimeout(group), 1));
  }
  files.set(AGENT_FILE, agentWithRouters(read(AGENT_FILE)));
  return files;
}

const withoutVersion = (workflow: Json): string =>
  JSON.stringify({ ...workflow, meta: { ...workflow.meta, version: 0 } });

async function main(): Promise<void> {
  const options = await resolveConfig(path.join(WORKFLOWS, AGENT_FILE));
  for (const [file, generated] of generatedFiles()) {
    const current = readIfThere(file);
    if (current && withoutVersion(current) === withoutVersion(generated)) continue;
    const version = current ? Number(current.meta?.version ?? 0) + 1 : 1;
    const text = JSON.stringify({ ...generated, meta: { ...generated.meta, version } }, null, 2);
    writeFileSync(path.join(WORKFLOWS, file), await format(text, { ...options, filepath: file }));
    console.log(`${file}: written (version ${version})`);
  }
}

if (require.main === module) void main();
