// The tool registry against what it describes: the tools the agent workflow's routers reach (name and workflow), the
// workflow files, and the docs' table (docs/ASSISTANT.md, generated:tools). Each mismatch names its tool; each check is also run
// on a bad copy, so this test can fail.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RESERVED_TOOL_NAMES } from '../../src/built-tools/registry';
import { ASSISTANT_TOOLS, FORBIDDEN_EXPERT_TOOLS } from '../../src/experts/catalogue';
import { SHIPPED_EXPERTS } from '../../src/experts/registry';
import { toolsTable, TOOLS_TABLE_MARKERS } from '../../src/tools/docs-table';
import { TOOL_CALLS } from '../../src/tools/arguments';
import { routedTools } from './routed-tools';
import {
  DEFAULT_APPROVAL,
  isDelegation,
  TOOL_EFFECTS,
  TOOL_GROUPS,
  TOOL_REGISTRY,
  type AssistantTool,
} from '../../src/tools/registry';

const ROOT = path.join(__dirname, '..', '..', '..');
const TOOL_NODE_TYPE = '@n8n/n8n-nodes-langchain.toolWorkflow';

interface ToolNode {
  name: string;
  workflowId: string;
}
interface WorkflowFile {
  id: string;
  nodes: Array<{ type: string; name: string; parameters?: { workflowId?: { value?: string } } }>;
}

const readWorkflow = (file: string): WorkflowFile =>
  JSON.parse(readFileSync(path.join(ROOT, 'workflows', file), 'utf8')) as WorkflowFile;

/** A workflow's tool nodes: name and the id of the workflow each runs. */
const toolNodes = (file: string): ToolNode[] =>
  readWorkflow(file)
    .nodes.filter((node) => node.type === TOOL_NODE_TYPE)
    .map((node) => ({ name: node.name, workflowId: node.parameters?.workflowId?.value ?? '' }));

/** Where the registry and the agent's tool nodes differ, one sentence per tool. */
function nodeProblems(registry: readonly AssistantTool[], nodes: ToolNode[]): string[] {
  const problems: string[] = [];
  for (const node of nodes) {
    const entry = registry.find((tool) => tool.name === node.name);
    if (!entry) problems.push(`${node.name}: a tool of the agent, not in the registry`);
    else if (entry.workflow.id !== node.workflowId) {
      problems.push(`${node.name}: runs workflow ${node.workflowId}, the registry says ${entry.workflow.id}`);
    }
  }
  for (const tool of registry) {
    if (!nodes.some((node) => node.name === tool.name)) problems.push(`${tool.name}: in the registry, not routed`);
  }
  const names = registry.map((tool) => tool.name);
  for (const name of new Set(names)) {
    if (names.indexOf(name) !== names.lastIndexOf(name)) problems.push(`${name}: twice in the registry`);
  }
  return problems;
}

/** Registry entries whose workflow file is missing or has another id. */
function fileProblems(registry: readonly AssistantTool[]): string[] {
  return registry.flatMap((tool) => {
    try {
      const id = readWorkflow(tool.workflow.file).id;
      return id === tool.workflow.id ? [] : [`${tool.name}: ${tool.workflow.file} has id ${id}`];
    } catch {
      return [`${tool.name}: no workflow file ${tool.workflow.file}`];
    }
  });
}

/** The table rows by tool name (the first cell, without backticks). */
function tableRows(table: string): Map<string, string> {
  const rows = table
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => [line.slice(3, line.indexOf('`', 3)), line.trim()] as const);
  return new Map(rows);
}

/** Where the docs' table differs from the rendered one, one sentence per tool (or about the markers and order). */
function docsProblems(docs: string, rendered: string): string[] {
  const from = docs.indexOf(TOOLS_TABLE_MARKERS.start);
  const to = docs.indexOf(TOOLS_TABLE_MARKERS.end);
  if (from === -1 || to < from) return ['docs/ASSISTANT.md has no generated:tools markers'];
  const written = docs.slice(from + TOOLS_TABLE_MARKERS.start.length, to).trim();
  if (written === rendered) return [];
  const inDocs = tableRows(written);
  const problems: string[] = [];
  for (const [name, row] of tableRows(rendered)) {
    if (!inDocs.has(name)) problems.push(`${name}: not in the docs' table`);
    else if (inDocs.get(name) !== row) problems.push(`${name}: its row in the docs differs`);
  }
  for (const name of inDocs.keys()) if (!tableRows(rendered).has(name)) problems.push(`${name}: only in the docs`);
  return problems.length > 0 ? problems : ["the docs' table differs in its header or order"];
}

const rank = (effect: AssistantTool['effect']) => TOOL_EFFECTS.indexOf(effect);
const REGENERATE = 'regenerate with: npx tsx scripts/docs/tools-table.ts';

describe('the tool registry', () => {
  it("is what the agent workflow's routers reach, each tool with its workflow", () => {
    expect(nodeProblems(TOOL_REGISTRY, routedTools())).toEqual([]);
  });

  it('gives every tool its arguments (what the routers check and map), and nothing else', () => {
    expect(Object.keys(TOOL_CALLS).sort()).toEqual(TOOL_REGISTRY.map((tool) => tool.name).sort());
    for (const [name, spec] of Object.entries(TOOL_CALLS)) {
      expect(spec.description.trim(), name).not.toBe('');
      expect(spec.turnFields, name).toEqual(expect.arrayContaining(['user_id', 'deadline']));
      for (const arg of spec.arguments) expect(arg.description.trim(), `${name}.${arg.name}`).not.toBe('');
    }
  });

  it('names each workflow by its real file and id', () => {
    expect(fileProblems(TOOL_REGISTRY)).toEqual([]);
  });

  it("is docs/ASSISTANT.md's table", () => {
    const docs = readFileSync(path.join(ROOT, 'docs', 'ASSISTANT.md'), 'utf8');
    expect(docsProblems(docs, toolsTable()), REGENERATE).toEqual([]);
  });

  it('gives each tool a known group and effect, and the default approval of its effect but where it has its own', () => {
    for (const tool of TOOL_REGISTRY) {
      expect(TOOL_GROUPS, tool.name).toContain(tool.group);
      expect(TOOL_EFFECTS, tool.name).toContain(tool.effect);
      expect(tool.summary.trim(), tool.name).not.toBe('');
    }
    const ownRules = TOOL_REGISTRY.filter((tool) => tool.approval !== DEFAULT_APPROVAL[tool.effect] || tool.asksItself);
    expect(ownRules.map((tool) => `${tool.name}: ${tool.approval}${tool.asksItself ? ' (asks itself)' : ''}`)).toEqual([
      'forget_everything: ask-user (asks itself)',
      // A code that lets a person in: the user who asked says yes first (an injected order cannot hand one out).
      'issue_pairing_code: ask-user',
      // Typing and choosing on a page do not ask by default (approval fatigue); a click asks when it sends a form.
      'browser_fill: never',
      'browser_select: never',
      'install_expert: ask-operator (asks itself)',
      // An expert's own tools run the gate themselves.
      'ask_expert: never',
      'build_tool: ask-operator (asks itself)',
    ]);
    const partial = TOOL_REGISTRY.filter((tool) => tool.asksOnlyWhen);
    expect(partial.map((tool) => `${tool.name}: ${tool.approval} ${tool.asksOnlyWhen}`)).toEqual([
      'browser_click: ask-user sends-form',
      'run_tool: ask-user method-not-get',
    ]);
    expect(DEFAULT_APPROVAL.read).toBe('never');
    expect(DEFAULT_APPROVAL.destructive).toBe('ask-operator');
  });

  it("gives a shipped expert's delegation at least the strongest effect of that expert's tools", () => {
    for (const expert of SHIPPED_EXPERTS) {
      const delegation = TOOL_REGISTRY.find((tool) => tool.name === `ask_${expert.id}`);
      expect(delegation, expert.id).toBeDefined();
      const file = delegation?.workflow.file ?? '';
      for (const node of toolNodes(file)) {
        const used = TOOL_REGISTRY.find((tool) => tool.name === node.name);
        if (used) expect(rank(delegation!.effect), `${file}: ${node.name}`).toBeGreaterThanOrEqual(rank(used.effect));
      }
    }
  });

  it('is what the catalogue and built tools read their tool lists from', () => {
    expect(ASSISTANT_TOOLS).toHaveLength(TOOL_REGISTRY.filter((tool) => !isDelegation(tool)).length);
    expect(ASSISTANT_TOOLS.some((name) => name.startsWith('ask_') && name !== 'ask_user')).toBe(false);
    expect(TOOL_REGISTRY.filter(isDelegation).map((tool) => tool.name)).toEqual([
      'ask_researcher',
      'ask_planner',
      'ask_analyst',
      'ask_expert',
    ]);
    expect(FORBIDDEN_EXPERT_TOOLS).toEqual([
      'build_tool',
      'delete_tool',
      'disable_tool',
      'forget_everything',
      'install_expert',
      'remove_expert',
      'remove_person',
      'set_dm_policy',
    ]);
    expect([...RESERVED_TOOL_NAMES].sort()).toEqual(TOOL_REGISTRY.map((tool) => tool.name).sort());
  });
});

describe('the registry checks name the tool that differs (this test can fail)', () => {
  const nodes = routedTools();

  it('a routed tool missing from the registry, a registry entry not routed, another workflow, a duplicate', () => {
    const [first, second, ...rest] = TOOL_REGISTRY;
    const changed = { ...second, workflow: { ...second.workflow, id: 'asstSomethingElse' } };
    const extra = { ...first, name: 'send_email' };
    expect(nodeProblems([changed, extra, ...rest, rest[0]], nodes)).toEqual([
      `${first.name}: a tool of the agent, not in the registry`,
      `${second.name}: runs workflow ${second.workflow.id}, the registry says asstSomethingElse`,
      'send_email: in the registry, not routed',
      `${rest[0].name}: twice in the registry`,
    ]);
  });

  it('a workflow file that is missing or has another id', () => {
    const [first, second] = TOOL_REGISTRY;
    expect(
      fileProblems([
        { ...first, workflow: { ...first.workflow, file: 'assistant-tool-gone.json' } },
        { ...second, workflow: { ...second.workflow, id: 'asstOtherId00001' } },
      ]),
    ).toEqual([
      `${first.name}: no workflow file assistant-tool-gone.json`,
      `${second.name}: ${second.workflow.file} has id ${second.workflow.id}`,
    ]);
  });

  it('a docs table with a changed row, a missing row and no markers', () => {
    const rendered = toolsTable();
    const wrap = (table: string) => `intro\n${TOOLS_TABLE_MARKERS.start}\n\n${table}\n\n${TOOLS_TABLE_MARKERS.end}\n`;
    expect(docsProblems(wrap(rendered), rendered)).toEqual([]);
    const changed = rendered
      .split('\n')
      .map((line) => (line.startsWith('| `browser_click`') ? line.replace('external', 'read    ') : line))
      .join('\n');
    expect(docsProblems(wrap(changed), rendered)).toEqual(['browser_click: its row in the docs differs']);
    const missing = rendered
      .split('\n')
      .filter((line) => !line.startsWith('| `run_tool`'))
      .join('\n');
    expect(docsProblems(wrap(missing), rendered)).toEqual(["run_tool: not in the docs' table"]);
    expect(docsProblems('no markers here', rendered)).toEqual(['docs/ASSISTANT.md has no generated:tools markers']);
  });
});
