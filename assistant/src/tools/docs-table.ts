// The docs' table of the main agent's tools (docs/ASSISTANT.md, between the generated:tools markers), rendered from
// the registry; scripts/docs/tools-table.ts writes it there and assistant/test/tools/registry.test.ts checks it.
import { ASK_CONDITION_WORDS, TOOL_GROUPS, TOOL_REGISTRY, type AssistantTool, type ToolApproval } from './registry';
import { TOOL_ROUTERS } from './routers';

export const APPROVAL_WORDS: Readonly<Record<ToolApproval, string>> = {
  never: 'never',
  'ask-user': 'ask the user first',
  'ask-operator': 'ask the operator first',
  judge: 'the Judge decides whether to ask the user',
};

/** The markers the table stands between in docs/ASSISTANT.md. */
export const TOOLS_TABLE_MARKERS = { start: '<!-- generated:tools -->', end: '<!-- /generated:tools -->' } as const;

/** A Markdown table with its columns padded as prettier pads them. */
function markdownTable(header: string[], rows: string[][]): string {
  const all = [header, ...rows];
  const widths = header.map((_, column) => Math.max(...all.map((row) => row[column].length)));
  const line = (cells: string[]) => `| ${cells.map((cell, i) => cell.padEnd(widths[i])).join(' | ')} |`;
  return [line(header), `| ${widths.map((width) => '-'.repeat(width)).join(' | ')} |`, ...rows.map(line)].join('\n');
}

/** The tool's default rule in words, with the calls it applies to where it is not every call. */
function approvalWords(tool: AssistantTool): string {
  const words = APPROVAL_WORDS[tool.approval];
  return tool.asksOnlyWhen && tool.approval !== 'never' ? `${words}, ${ASK_CONDITION_WORDS[tool.asksOnlyWhen]}` : words;
}

/** One row per tool, grouped in TOOL_GROUPS order (each group with its router tool) and in registry order within. */
export function toolsTable(): string {
  const rows = TOOL_GROUPS.flatMap((group) =>
    TOOL_REGISTRY.filter((tool) => tool.group === group).map((tool) => [
      `\`${tool.name}\``,
      `${group} (\`${TOOL_ROUTERS[group].name}\`)`,
      tool.effect,
      approvalWords(tool),
      `\`${tool.workflow.file}\``,
      tool.summary,
    ]),
  );
  return markdownTable(['tool', 'group (router)', 'effect', 'approval', 'workflow', 'what it does'], rows);
}
