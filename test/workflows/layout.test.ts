// Every workflow in workflows/ stays readable for an operator who opens it in n8n's editor: valid JSON, tagged in the
// format n8n's `import:workflow` really imports, sticky notes on the larger ones, node names that say what the node
// does (no n8n default names), no node boxes on top of each other, no sticky notes on top of each other, and no
// reference to a node name that does not exist (a rename that missed a connection or an expression).
// A run limit a sticky note states in seconds ("a run stops after 330 s") is the workflow's settings.executionTimeout.
// Pure JSON checks, no n8n. Each check is also run on a bad fixture, so this test can fail.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const WORKFLOWS_DIR = path.join(__dirname, '..', '..', 'workflows');
const STICKY_NOTE_TYPE = 'n8n-nodes-base.stickyNote';

interface WorkflowNode {
  name: string;
  type: string;
  position: [number, number];
  parameters?: Record<string, unknown>;
}
interface Workflow {
  name?: string;
  nodes: WorkflowNode[];
  connections: Record<string, Record<string, Array<Array<{ node: string; type: string; index: number }> | null>>>;
  tags?: unknown;
  settings?: { executionTimeout?: number };
}
interface Box {
  name: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

// Node boxes as n8n 2.41.1's canvas draws them (editor-ui src/app/utils/nodeViewUtils.ts, GRID_SIZE = 16): a node
// is DEFAULT_NODE_SIZE 96×96 from its position (the top-left corner); an AI sub-node (a "configuration" node, one
// with an ai_* output: chat model, memory, tool) is a circle of CONFIGURATION_NODE_SIZE 80×80; a node with AI inputs
// (a "configurable" node: the AI Agent, a Chat Memory Manager) is CONFIGURABLE_NODE_SIZE 256×96. A sticky note is
// its own width × height (default 240×160, n8n's DEFAULT_STICKY_WIDTH/HEIGHT).
const DEFAULT_NODE_SIZE = { width: 96, height: 96 };
const CONFIGURATION_NODE_SIZE = { width: 80, height: 80 };
const CONFIGURABLE_NODE_SIZE = { width: 256, height: 96 };
const DEFAULT_STICKY_SIZE = { width: 240, height: 160 };

/** Workflows with more nodes than this (sticky notes not counted) need at least one sticky note. */
const STICKY_NOTE_THRESHOLD = 5;

// The default display names n8n 2.41.1 gives new nodes (`defaults.name` in n8n-nodes-base and
// @n8n/n8n-nodes-langchain types/nodes.json, for the common nodes), this project's own nodes' defaults, and names
// that say nothing about what the node does. A name is refused when it is one of these with optional trailing digits
// (n8n's "Code1", "HTTP Request2"), compared case-insensitively.
// prettier-ignore
const DEFAULT_NODE_NAMES = [
  // n8n-nodes-base
  'Aggregate', 'Code', 'Compare Datasets', 'Cron', 'Crypto', 'Date & Time', 'Edit Fields', 'Error Trigger',
  'Execute Command', 'Execute Workflow', 'Execute Workflow Trigger', 'Execution Data', 'Filter', 'Function',
  'Function Item', 'HTML', 'HTTP Request', 'If', 'Interval', 'Item Lists', 'Limit', 'Loop Over Items',
  'Manual Trigger', 'Markdown', 'Merge', 'n8n Form Trigger', 'No Operation, do nothing', 'On form submission',
  'Postgres', 'Read/Write Files from Disk', 'Remove Duplicates', 'Rename Keys', 'Respond to Webhook',
  'Schedule Trigger', 'Send Email', 'Set', 'Sort', 'Split In Batches', 'Split Out', 'Start', 'Sticky Note',
  'Stop and Error', 'Summarize', 'Switch', 'Telegram', 'Telegram Trigger', 'Wait', 'Webhook', 'XML',
  'When clicking ‘Execute workflow’', 'When Executed by Another Workflow',
  // @n8n/n8n-nodes-langchain
  'AI Agent', 'AI Agent Tool', 'Agent', 'Anthropic Chat Model', 'Basic LLM Chain', 'Calculator',
  'Call n8n Workflow Tool', 'Chat Memory Manager', 'Code Tool', 'DeepSeek Chat Model', 'Embeddings OpenAI',
  'Google Gemini Chat Model', 'HTTP Request Tool', 'Information Extractor', 'LangChain Code', 'MCP Client',
  'Mistral Cloud Chat Model', 'Ollama Chat Model', 'OpenAI', 'OpenAI Chat Model', 'OpenRouter Chat Model',
  'Postgres Chat Memory', 'Simple Memory', 'Structured Output Parser', 'Text Classifier', 'Think',
  'When chat message received',
  // this project's nodes (nodes/*: defaults.name)
  'Judge', 'Assistant Channel', 'Assistant Context', 'Assistant Memory', 'Assistant Knowledge Graph', 'Assistant Tasks',
  // generic
  'Request', 'Response', 'Answer', 'Error', 'Result', 'Data', 'Node',
];
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const DEFAULT_NAME_PATTERN = new RegExp(`^(?:${DEFAULT_NODE_NAMES.map(escapeRegExp).join('|')})\\s*\\d*$`, 'i');

const isSticky = (node: WorkflowNode) => node.type === STICKY_NOTE_TYPE;

/** The node boxes on the canvas (sticky notes apart). */
function nodeBoxes(workflow: Workflow): Box[] {
  const aiSources = new Set<string>();
  const aiTargets = new Set<string>();
  for (const [source, outputs] of Object.entries(workflow.connections ?? {})) {
    for (const [type, groups] of Object.entries(outputs)) {
      if (!type.startsWith('ai_')) continue;
      aiSources.add(source);
      for (const group of groups) for (const connection of group ?? []) aiTargets.add(connection.node);
    }
  }
  return workflow.nodes
    .filter((node) => !isSticky(node))
    .map((node) => {
      const size = aiSources.has(node.name)
        ? CONFIGURATION_NODE_SIZE
        : aiTargets.has(node.name)
          ? CONFIGURABLE_NODE_SIZE
          : DEFAULT_NODE_SIZE;
      return { name: node.name, x: node.position[0], y: node.position[1], ...size };
    });
}

function stickyBoxes(workflow: Workflow): Box[] {
  return workflow.nodes.filter(isSticky).map((node) => ({
    name: node.name,
    x: node.position[0],
    y: node.position[1],
    width: Number(node.parameters?.width ?? DEFAULT_STICKY_SIZE.width),
    height: Number(node.parameters?.height ?? DEFAULT_STICKY_SIZE.height),
  }));
}

const overlap = (a: Box, b: Box) =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

/** Pairs of boxes that overlap (touching edges do not). */
function overlaps(boxes: Box[]): string[] {
  const found: string[] = [];
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length; j++) {
      if (overlap(boxes[i], boxes[j])) found.push(`"${boxes[i].name}" overlaps "${boxes[j].name}"`);
    }
  }
  return found;
}

/**
 * n8n 2.41.1's import (ImportService.importWorkflows → TagRepository.setTags) keeps a tag only as an object with a
 * `name`; a plain string ends in `null value in column "tagId"` and the whole import fails. A tag without `id` is
 * created anew for each file in one import run, so two files sharing a new tag fail on the tag name's unique index;
 * with a fixed `id` the first file creates it and the others reuse it. Names are 1–24 characters (TagEntity).
 */
function tagProblems(workflows: Array<{ file: string; workflow: Workflow }>): string[] {
  const problems: string[] = [];
  const idOfName = new Map<string, string>();
  const nameOfId = new Map<string, string>();
  for (const { file, workflow } of workflows) {
    const tags = workflow.tags;
    if (!Array.isArray(tags) || tags.length === 0) {
      problems.push(`${file}: no tags`);
      continue;
    }
    for (const tag of tags as unknown[]) {
      const { id, name } = (tag ?? {}) as { id?: unknown; name?: unknown };
      if (typeof tag !== 'object' || typeof id !== 'string' || typeof name !== 'string') {
        problems.push(`${file}: tag ${JSON.stringify(tag)} must be {"id", "name"}`);
        continue;
      }
      if (!/^[A-Za-z0-9]{16}$/.test(id))
        problems.push(`${file}: tag "${name}" needs a fixed 16-character alphanumeric id`);
      if (name.length < 1 || name.length > 24) problems.push(`${file}: tag name "${name}" must be 1–24 characters`);
      if ((idOfName.get(name) ?? id) !== id)
        problems.push(`${file}: tag "${name}" has id ${id}, elsewhere ${idOfName.get(name)}`);
      if ((nameOfId.get(id) ?? name) !== name)
        problems.push(`${file}: tag id ${id} is "${name}", elsewhere "${nameOfId.get(id)}"`);
      idOfName.set(name, id);
      nameOfId.set(id, name);
    }
  }
  return problems;
}

function stickyNoteProblems(workflow: Workflow): string[] {
  const nodes = workflow.nodes.filter((node) => !isSticky(node)).length;
  const notes = workflow.nodes.filter(isSticky);
  const problems: string[] = [];
  if (nodes > STICKY_NOTE_THRESHOLD && notes.length === 0) {
    problems.push(`${nodes} nodes and no sticky note explaining them`);
  }
  for (const note of notes) {
    const content = String(note.parameters?.content ?? '');
    if (!/^###? \S/.test(content) || content.split('\n').slice(1).join(' ').trim() === '') {
      problems.push(`sticky note "${note.name}" needs a "### Title" line and a few sentences`);
    }
  }
  return problems;
}

// How a sticky note states this workflow's own run limit in seconds: "a run stops after 330 s", "runs stop at 1,800
// seconds", "the workflow times out after 60 s", "300 s (this workflow's timeout)", "an execution timeout of 900 s".
// Limits of other workflows ("tools stop after 300 s") and waits ("waits up to 300 s") are not run limits.
const SECONDS = String.raw`(\d[\d,]*)\s*(?:s|secs?|seconds?)\b`;
const RUN_LIMIT_PATTERNS = [
  new RegExp(
    String.raw`\b(?:runs?|executions?|workflows?)\s+(?:stops?|ends?|times?\s+out)\s+(?:after|at)\s+${SECONDS}`,
    'gi',
  ),
  new RegExp(String.raw`${SECONDS}\s*\(this workflow's (?:execution )?timeout`, 'gi'),
  new RegExp(String.raw`\b(?:execution )?timeout (?:of|is)\s+${SECONDS}`, 'gi'),
];

/** The run limits in seconds that the workflow's sticky notes state, with the note that states each. */
function statedRunLimits(workflow: Workflow): Array<{ note: string; seconds: number }> {
  return workflow.nodes.filter(isSticky).flatMap((note) => {
    const content = String(note.parameters?.content ?? '');
    const numbers = RUN_LIMIT_PATTERNS.flatMap((pattern) => [...content.matchAll(pattern)].map((match) => match[1]));
    return [...new Set(numbers)].map((number) => ({ note: note.name, seconds: Number(number.replace(/,/g, '')) }));
  });
}

/** Sticky notes whose stated run limit is not the workflow's execution timeout. */
function runLimitProblems(workflow: Workflow): string[] {
  const timeout = workflow.settings?.executionTimeout;
  return statedRunLimits(workflow)
    .filter(({ seconds }) => seconds !== timeout)
    .map(({ note, seconds }) =>
      timeout === undefined
        ? `sticky note "${note}" says runs stop after ${seconds} s, but the workflow has no settings.executionTimeout`
        : `sticky note "${note}" says runs stop after ${seconds} s, but settings.executionTimeout is ${timeout} s`,
    );
}

function defaultNameProblems(workflow: Workflow): string[] {
  return workflow.nodes
    .filter((node) => DEFAULT_NAME_PATTERN.test(node.name.trim()))
    .map((node) => `node "${node.name}" has a default or generic name: say what it does`);
}

/** Duplicate names, and connections or expressions ($('Name'), $node["Name"]) naming a node that is not there. */
function referenceProblems(workflow: Workflow): string[] {
  const names = new Set<string>();
  const problems: string[] = [];
  for (const node of workflow.nodes) {
    if (names.has(node.name)) problems.push(`two nodes are named "${node.name}"`);
    names.add(node.name);
  }
  for (const [source, outputs] of Object.entries(workflow.connections ?? {})) {
    if (!names.has(source)) problems.push(`connections from unknown node "${source}"`);
    for (const groups of Object.values(outputs)) {
      for (const group of groups) {
        for (const { node } of group ?? [])
          if (!names.has(node)) problems.push(`connection from "${source}" to unknown node "${node}"`);
      }
    }
  }
  const pattern = /\$\(\s*(["'`])(.+?)\1\s*\)|\$node\[\s*(["'`])(.+?)\3\s*\]/g;
  const walk = (value: unknown): void => {
    if (typeof value === 'string') {
      for (const match of value.matchAll(pattern)) {
        const name = match[2] ?? match[4];
        if (!names.has(name)) problems.push(`an expression names unknown node "${name}"`);
      }
    } else if (value && typeof value === 'object') {
      Object.values(value).forEach(walk);
    }
  };
  for (const node of workflow.nodes) walk(node.parameters);
  return problems;
}

const files = readdirSync(WORKFLOWS_DIR)
  .filter((file) => file.endsWith('.json'))
  .sort();
const read = (file: string): Workflow => JSON.parse(readFileSync(path.join(WORKFLOWS_DIR, file), 'utf8'));

describe('workflows/ stay readable in the editor', () => {
  it('has workflows to check', () => {
    expect(files.length).toBeGreaterThan(0);
  });

  it.each(files)('%s is valid JSON with nodes and connections', (file) => {
    const workflow = read(file);
    expect(Array.isArray(workflow.nodes)).toBe(true);
    expect(typeof workflow.connections).toBe('object');
    for (const node of workflow.nodes) {
      expect(node.position, `node "${node.name}"`).toEqual([expect.any(Number), expect.any(Number)]);
    }
  });

  it('every workflow is tagged, in the format n8n imports, with one id per tag name', () => {
    expect(tagProblems(files.map((file) => ({ file, workflow: read(file) })))).toEqual([]);
  });

  it.each(files)('%s: sticky notes where there are more than 5 nodes', (file) => {
    expect(stickyNoteProblems(read(file))).toEqual([]);
  });

  it.each(files)('%s: run limits in sticky notes are its execution timeout', (file) => {
    expect(runLimitProblems(read(file))).toEqual([]);
  });

  it('sticky notes state run limits to check', () => {
    const stated = files.filter((file) => statedRunLimits(read(file)).length > 0);
    expect(stated).toEqual(expect.arrayContaining(['assistant-agent.json', 'assistant-action-run.json']));
  });

  it.each(files)('%s: node names say what the node does', (file) => {
    expect(defaultNameProblems(read(file))).toEqual([]);
  });

  it.each(files)('%s: connections and expressions name existing nodes', (file) => {
    expect(referenceProblems(read(file))).toEqual([]);
  });

  it.each(files)('%s: no node box overlaps another', (file) => {
    expect(overlaps(nodeBoxes(read(file)))).toEqual([]);
  });

  it.each(files)('%s: no sticky note overlaps another', (file) => {
    expect(overlaps(stickyBoxes(read(file)))).toEqual([]);
  });
});

describe('the checks catch bad workflows (this test can fail)', () => {
  const node = (
    name: string,
    position: [number, number],
    type = 'n8n-nodes-base.noOp',
    parameters = {},
  ): WorkflowNode => ({
    name,
    type,
    position,
    parameters,
  });
  const sticky = (
    name: string,
    position: [number, number],
    width: number,
    height: number,
    content = '### Title\nWhat it does.',
  ) => node(name, position, STICKY_NOTE_TYPE, { content, width, height });

  it('invalid JSON is an error', () => {
    expect(() => JSON.parse('{"nodes": [,]}')).toThrow();
  });

  it('untagged workflows, plain-string tags, tags without id and one name with two ids', () => {
    const wf = (tags: unknown): Workflow => ({ nodes: [], connections: {}, tags });
    const problems = tagProblems([
      { file: 'none.json', workflow: wf([]) },
      { file: 'missing.json', workflow: wf(undefined) },
      { file: 'string.json', workflow: wf(['assistant']) },
      { file: 'no-id.json', workflow: wf([{ name: 'assistant' }]) },
      { file: 'a.json', workflow: wf([{ id: 'tagAaaaaaaaaaaa1', name: 'same' }]) },
      { file: 'b.json', workflow: wf([{ id: 'tagBbbbbbbbbbbb1', name: 'same' }]) },
      { file: 'long.json', workflow: wf([{ id: 'tagCccccccccccc1', name: 'a-tag-name-over-24-characters' }]) },
    ]).join('\n');
    expect(problems).toMatch(/none\.json: no tags/);
    expect(problems).toMatch(/missing\.json: no tags/);
    expect(problems).toMatch(/string\.json: tag "assistant" must be/);
    expect(problems).toMatch(/no-id\.json: tag .* must be/);
    expect(problems).toMatch(/b\.json: tag "same" has id tagBbbbbbbbbbbb1, elsewhere tagAaaaaaaaaaaa1/);
    expect(problems).toMatch(/long\.json: tag name .* 1–24 characters/);
    expect(tagProblems([{ file: 'ok.json', workflow: wf([{ id: 'tagAaaaaaaaaaaa1', name: 'ok' }]) }])).toEqual([]);
  });

  it('more than 5 nodes without a sticky note, and a sticky note without a title', () => {
    const six = Array.from({ length: 6 }, (_, i) => node(`Step ${i}`, [i * 200, 0]));
    expect(stickyNoteProblems({ nodes: six, connections: {} })).toEqual(['6 nodes and no sticky note explaining them']);
    expect(stickyNoteProblems({ nodes: six.slice(0, 5), connections: {} })).toEqual([]);
    expect(stickyNoteProblems({ nodes: [...six, sticky('About', [0, -300], 400, 200)], connections: {} })).toEqual([]);
    expect(
      stickyNoteProblems({ nodes: [...six, sticky('Bare', [0, -300], 400, 200, 'just text')], connections: {} }),
    ).toEqual(['sticky note "Bare" needs a "### Title" line and a few sentences']);
  });

  it('a run limit in a sticky note that is not the execution timeout (the agent note said 330 s, it was 1,800 s)', () => {
    const note = (content: string) => sticky('Note: Limits', [0, -300], 400, 200, `### Limits\n${content}`);
    const workflow = (content: string, executionTimeout?: number): Workflow => ({
      nodes: [note(content)],
      connections: {},
      settings: executionTimeout === undefined ? {} : { executionTimeout },
    });
    const agentNote = "A run stops after 330 s (this workflow's timeout); tools stop after 300 s.";
    expect(runLimitProblems(workflow(agentNote, 1800))).toEqual([
      'sticky note "Note: Limits" says runs stop after 330 s, but settings.executionTimeout is 1800 s',
    ]);
    expect(runLimitProblems(workflow(agentNote, 330))).toEqual([]);
    expect(runLimitProblems(workflow('Runs stop at 1,800 seconds.', 1800))).toEqual([]);
    expect(runLimitProblems(workflow('The workflow times out after 60 s.', 120))).toHaveLength(1);
    expect(runLimitProblems(workflow('It has an execution timeout of 900 s.', 1000))).toHaveLength(1);
    expect(runLimitProblems(workflow('Waits up to 300 s; a run stops at 330 s.', undefined))).toEqual([
      'sticky note "Note: Limits" says runs stop after 330 s, but the workflow has no settings.executionTimeout',
    ]);
    // Other workflows' limits and waits are not this workflow's run limit.
    expect(runLimitProblems(workflow('Tools stop after 300 s; Wait for Reply waits up to 120 s.', 1800))).toEqual([]);
  });

  it('default and generic names, with or without trailing digits', () => {
    const names = [
      'Code1',
      'HTTP Request2',
      'Edit Fields',
      'Webhook',
      'If',
      'No Operation, do nothing',
      'AI Agent',
      'Sticky Note3',
      'Request',
      'judge',
      'Answer',
      'Error',
      'Respond to Webhook1',
    ];
    const bad = { nodes: names.map((name, i) => node(name, [i * 200, 0])), connections: {} };
    expect(defaultNameProblems(bad)).toHaveLength(names.length);
    const good = [
      'Check Webhook Request',
      'Send Error',
      'Respond with Answers',
      'Accepted Request',
      'If Recent Turns',
      'Code Review Bot',
    ];
    expect(defaultNameProblems({ nodes: good.map((name, i) => node(name, [i * 200, 0])), connections: {} })).toEqual(
      [],
    );
  });

  it('a connection or an expression naming a node that is not there (a missed rename)', () => {
    const workflow: Workflow = {
      nodes: [
        node('Accepted Request', [0, 0]),
        node('Load Context', [200, 0], 'n8n-nodes-base.noOp', {
          a: "={{ $('Request').first().json.x }}",
          b: '={{ $node["Old Name"].json.y }}',
          c: "={{ $('Accepted Request').item }}",
        }),
        node('Load Context', [400, 0]),
      ],
      connections: {
        Request: { main: [[{ node: 'Load Context', type: 'main', index: 0 }]] },
        'Accepted Request': { main: [[{ node: 'Gone', type: 'main', index: 0 }]] },
      },
    };
    expect(referenceProblems(workflow).sort()).toEqual(
      [
        'two nodes are named "Load Context"',
        'connections from unknown node "Request"',
        'connection from "Accepted Request" to unknown node "Gone"',
        'an expression names unknown node "Request"',
        'an expression names unknown node "Old Name"',
      ].sort(),
    );
  });

  it('overlapping node boxes: equal and merely close positions, with n8n box sizes per kind of node', () => {
    // Today's bug: [480,180] and [480,200].
    expect(overlaps(nodeBoxes({ nodes: [node('A', [480, 180]), node('B', [480, 200])], connections: {} }))).toEqual([
      '"A" overlaps "B"',
    ]);
    // 96 wide: 90 apart overlaps, 96 apart touches only.
    expect(overlaps(nodeBoxes({ nodes: [node('A', [0, 0]), node('B', [90, 50])], connections: {} }))).toHaveLength(1);
    expect(overlaps(nodeBoxes({ nodes: [node('A', [0, 0]), node('B', [96, 0])], connections: {} }))).toEqual([]);
    // An AI Agent is 256 wide: a node 200 to its right overlaps it; AI sub-nodes are 80×80 circles.
    const ai: Workflow = {
      nodes: [
        node('Agent Node', [0, 0], '@n8n/n8n-nodes-langchain.agent'),
        node('Next', [200, 0]),
        node('Model', [0, 200]),
        node('Tool', [85, 200]),
      ],
      connections: {
        Model: { ai_languageModel: [[{ node: 'Agent Node', type: 'ai_languageModel', index: 0 }]] },
        Tool: { ai_tool: [[{ node: 'Agent Node', type: 'ai_tool', index: 0 }]] },
      },
    };
    expect(overlaps(nodeBoxes(ai))).toEqual(['"Agent Node" overlaps "Next"']);
    ai.nodes[3].position = [70, 200];
    expect(overlaps(nodeBoxes(ai))).toEqual(['"Agent Node" overlaps "Next"', '"Model" overlaps "Tool"']);
  });

  it('overlapping sticky notes, while a sticky note may enclose nodes', () => {
    const workflow: Workflow = {
      nodes: [
        sticky('One', [0, 0], 400, 300),
        sticky('Two', [390, 0], 400, 300),
        sticky('Three', [800, 0], 200, 200),
        node('Inside', [40, 100]),
      ],
      connections: {},
    };
    expect(overlaps(stickyBoxes(workflow))).toEqual(['"One" overlaps "Two"']);
    expect(overlaps(nodeBoxes(workflow))).toEqual([]);
    // Default sticky size (240×160) when width/height are missing.
    const defaults: Workflow = {
      nodes: [node('A', [0, 0], STICKY_NOTE_TYPE), node('B', [230, 150], STICKY_NOTE_TYPE)],
      connections: {},
    };
    expect(overlaps(stickyBoxes(defaults))).toEqual(['"A" overlaps "B"']);
  });
});
