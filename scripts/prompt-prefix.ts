// How much of each main-agent request a model server's prompt cache can serve: a scripted conversation is rendered,
// request by request, through real chat templates (Qwen2.5 and Llama 3.1 from their tokenizer configs, a Mistral v3
// template written from mistral-common's format) with the agent's real tools (from workflows/assistant-agent.json, as
// n8n builds them from $fromAI) and the product's own system prompt, context block and history window; the share of a
// request that is byte-identical to the start of the request before it is what the cache keeps. "before" renders the
// same conversation the way the agent was built before issue 41 (the time and the memories in the system message, a
// history window that slides by one message). Part 2 (the router tools): the tool schemas of a plain turn and the
// prompts of a plain and a tool turn with the 50 registry tools as they were (one tool node each, rebuilt from the
// registry) and with the agent's 7 routers. Run: npx tsx scripts/prompt-prefix.ts
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Template } from '@huggingface/jinja';
import { contextBlock, estimateTokens, historyWindow, systemPrompt } from 'assistant-core';
import { TOOL_GROUPS, TOOL_REGISTRY } from '../assistant/src/tools/registry';
import { AGENT_SOURCES, TOOL_NODE_TYPE, toolNode } from '../assistant/src/tools/router-workflows';
import { TOOL_ROUTERS } from '../assistant/src/tools/routers';

const ROOT = path.join(__dirname, '..');

export const TEMPLATES = {
  'Qwen2.5': 'judge/test/onnx/chat-templates/qwen2.5-instruct.jinja',
  'Llama 3.1': 'judge/test/onnx/chat-templates/llama-3.1-instruct.jinja',
  'Mistral v3': 'test/fixtures/chat-templates/mistral-v3-tools.jinja',
} as const;
export type TemplateName = keyof typeof TEMPLATES;

const SPECIAL: Record<TemplateName, { bos_token: string; eos_token: string }> = {
  'Qwen2.5': { bos_token: '', eos_token: '<|im_end|>' },
  'Llama 3.1': { bos_token: '<|begin_of_text|>', eos_token: '<|eot_id|>' },
  'Mistral v3': { bos_token: '<s>', eos_token: '</s>' },
};

interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}
export interface Message {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
}
export interface Tool {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

interface WorkflowNode {
  name: string;
  type: string;
  parameters: Record<string, unknown>;
}

function agentWorkflow(): { nodes: WorkflowNode[] } {
  return JSON.parse(readFileSync(path.join(ROOT, 'workflows', 'assistant-agent.json'), 'utf8'));
}

/** A tool node as the chat model gets it: its description and its $fromAI fields ('json' is n8n's object). */
function toolSchema(node: WorkflowNode): Tool {
  const fromAi = /\$fromAI\('([^']+)',\s*'((?:[^'\\]|\\.)*)',\s*'([a-z]+)'/g;
  const properties: Record<string, { type: string; description: string }> = {};
  const values = Object.values((node.parameters.workflowInputs as { value: Record<string, unknown> }).value);
  for (const [, key, description, type] of values.map(String).flatMap((value) => [...value.matchAll(fromAi)]))
    properties[key] = { type: type === 'json' ? 'object' : type, description: description.replace(/\\'/g, "'") };
  return {
    type: 'function',
    function: {
      name: node.name,
      description: String(node.parameters.description ?? ''),
      parameters: { type: 'object', properties, required: Object.keys(properties) },
    },
  };
}

/** The agent's tools as the chat model gets them (its 7 routers): each tool node of workflows/assistant-agent.json. */
export function agentTools(): Tool[] {
  return agentWorkflow()
    .nodes.filter((node) => node.type === TOOL_NODE_TYPE)
    .map(toolSchema);
}

/** The agent's tools before the routers (issue 41, part 2): one tool node per registry tool, from the registry. */
export function toolsBeforeRouters(): Tool[] {
  return TOOL_REGISTRY.map((tool) => toolSchema(toolNode(tool, AGENT_SOURCES, 'before') as WorkflowNode));
}

/** The static tool instructions the workflow appends to Load Context's system prompt. */
export function toolInstructions(): string {
  const agent = agentWorkflow().nodes.find((node) => node.type === '@n8n/n8n-nodes-langchain.agent')!;
  const expression = String((agent.parameters.options as { systemMessage: string }).systemMessage);
  const literal = /systemPrompt \+ '((?:[^'\\]|\\.)*)' \}\}$/.exec(expression);
  if (!literal) throw new Error("the agent's system message is no longer systemPrompt + '…'");
  return literal[1].replace(/\\n/g, '\n').replace(/\\'/g, "'");
}

const SETTINGS = {
  assistantName: 'Ada',
  style: 'Friendly and brief.',
  language: 'english',
  timeZone: 'Europe/Vienna',
} as Parameters<typeof systemPrompt>[0];

interface ScriptedTurn {
  message: string;
  memories: string[];
  /** A tool the model calls before answering, with its result. */
  tool?: { name: string; arguments: Record<string, unknown>; result: string };
  reply: string;
}

/** A call of remember_memory: through the memory router (the agent now), or by its own name (before the routers). */
const rememberCall = (args: Record<string, string>, routed: boolean) =>
  routed
    ? { name: 'memory', arguments: { action: 'remember_memory', args: JSON.stringify(args) } }
    : { name: 'remember_memory', arguments: args };

/** Ten turns of an ordinary conversation: small talk, a remembered fact, a task, a reminder, recalled memories. */
export function scriptedConversation(routed = true): ScriptedTurn[] {
  const topics = ['the garden', 'my sister Eva', 'the tax return', 'a trip to Graz', 'the bees', 'dinner'];
  return Array.from({ length: 10 }, (_, i) => ({
    message: `Turn ${i + 1}: what do you think about ${topics[i % topics.length]}? ${'Some more words. '.repeat(3 + (i % 4))}`,
    memories: i % 3 === 0 ? [] : [`Eva's birthday is on 3 May (${i})`, `The bees live behind the shed (${i})`],
    tool:
      i % 2 === 1
        ? {
            ...rememberCall({ content: `fact ${i + 1}`, people: '' }, routed),
            result: `Stored memory ${i}.`,
          }
        : undefined,
    reply: `Reply ${i + 1}. ${'Here is a considered answer. '.repeat(4 + (i % 5))}`,
  }));
}

const localTimeAt = (turn: number) =>
  `Saturday 2026-11-28 ${String(9 + Math.floor(turn / 6)).padStart(2, '0')}:${String((turn * 7) % 60).padStart(2, '0')} (Europe/Vienna)`;
const memoriesOf = (turn: ScriptedTurn) => turn.memories.map((content, id) => ({ id: id + 1, content }));

/** The history the agent gets before turn `index`: the product's block window, or (before) a sliding one. */
function historyBefore(turns: ScriptedTurn[], index: number, design: 'after' | 'before', budget = 2000): Message[] {
  const said = turns.slice(0, index).flatMap((turn) => [
    { role: 'user' as const, content: turn.message },
    { role: 'assistant' as const, content: turn.reply },
  ]);
  if (design === 'before') {
    const picked: Message[] = [];
    let used = 0;
    for (const message of [...said].reverse().slice(0, 20)) {
      used += estimateTokens(message.content);
      if (used > budget) break;
      picked.unshift(message);
    }
    return picked;
  }
  let tokens = 0;
  const half = Math.floor(budget / 2);
  const rows = said.map((message, position) => {
    const startsBlock =
      position === 0 ||
      Math.floor(tokens / half) > Math.floor((tokens - estimateTokens(said[position - 1].content)) / half);
    tokens += Math.ceil(message.content.length / 4) + 4;
    return {
      role: message.role as 'user' | 'assistant',
      content: message.content,
      position,
      starts_block: startsBlock,
    };
  });
  return historyWindow(rows.reverse().slice(0, 20), budget).map(({ role, content }) => ({ role, content }));
}

/** The requests the agent sends for each turn: the first, then one more after a tool call. */
export function conversationRequests(design: 'after' | 'before', routed = true): Message[][][] {
  const turns = scriptedConversation(routed);
  const instructions = `\n\n${toolInstructions()}`;
  return turns.map((turn, index) => {
    const time = localTimeAt(index);
    const memories = memoriesOf(turn);
    const system =
      design === 'after'
        ? systemPrompt(SETTINGS) + instructions
        : [
            `You are ${SETTINGS.assistantName}, a personal assistant.`,
            `Style: ${SETTINGS.style}`,
            `The user's preferred language is ${SETTINGS.language}; answer in the language the user writes in.`,
            `The user's local time is ${time}.`,
            ...(memories.length ? ['', 'What you remember that may be relevant (memory id, then content):'] : []),
            ...memories.map((m) => `- [${m.id}] ${m.content}`),
          ].join('\n') + instructions;
    const user = design === 'after' ? `${contextBlock(time, memories)}\n\n${turn.message}` : turn.message;
    const first: Message[] = [
      { role: 'system', content: system },
      ...historyBefore(turns, index, design),
      { role: 'user', content: user },
    ];
    if (!turn.tool) return [first];
    const call: ToolCall = {
      id: `call_${index}`,
      type: 'function',
      function: { name: turn.tool.name, arguments: JSON.stringify(turn.tool.arguments) },
    };
    return [
      first,
      [
        ...first,
        { role: 'assistant', content: '', tool_calls: [call] },
        { role: 'tool', content: turn.tool.result, tool_call_id: call.id },
      ],
    ];
  });
}

const compiled = new Map<TemplateName, Template>();

export function render(name: TemplateName, messages: Message[], tools: Tool[]): string {
  if (!compiled.has(name)) compiled.set(name, new Template(readFileSync(path.join(ROOT, TEMPLATES[name]), 'utf8')));
  // The templates read a tool call's arguments as an object (Qwen, Llama) and the call itself as {name, arguments}.
  const shaped = messages.map((m) =>
    m.tool_calls
      ? {
          ...m,
          tool_calls: m.tool_calls.map((c) => ({
            ...c.function,
            arguments: JSON.parse(c.function.arguments),
            function: { name: c.function.name, arguments: JSON.parse(c.function.arguments) },
          })),
        }
      : m,
  );
  return compiled.get(name)!.render({ messages: shaped, tools, add_generation_prompt: true, ...SPECIAL[name] });
}

export function sharedPrefix(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

export interface PrefixShares {
  /** Turn n (2 and 10): of its first request, the share byte-identical to the start of turn n-1's last request. */
  acrossTurns: Record<2 | 10, number>;
  /** Within a turn: of the request after a tool call, the share identical to the turn's first request (lowest). */
  withinTurn: number;
  /** Prompt characters of the first request of turn 2, and of its tool schemas. */
  promptChars: number;
  toolChars: number;
}

export function prefixShares(name: TemplateName, design: 'after' | 'before', tools = agentTools()): PrefixShares {
  const routed = tools.length === agentTools().length;
  const rendered = conversationRequests(design, routed).map((turn) =>
    turn.map((request) => render(name, request, tools)),
  );
  const across = (n: number) => {
    const previous = rendered[n - 2].at(-1)!;
    const current = rendered[n - 1][0];
    return sharedPrefix(previous, current) / current.length;
  };
  const within = rendered
    .filter((turn) => turn.length > 1)
    .map((turn) => sharedPrefix(turn[0], turn[1]) / turn[1].length);
  return {
    acrossTurns: { 2: across(2), 10: across(10) },
    withinTurn: Math.min(...within),
    promptChars: rendered[1][0].length,
    toolChars: JSON.stringify(tools).length,
  };
}

const percent = (share: number) => `${(share * 100).toFixed(1)} %`;

export interface SecondTurnOnOllama {
  /** Prompt tokens of turn 2's first request, and of those the ones the slot evaluated (not served by its cache). */
  promptTokens: number;
  evaluatedTokens: number;
  /** The fake's reported prompt evaluation time for them. */
  promptEvalSeconds: number;
}

/**
 * Turn 1's requests, then turn 2's first one, sent in order to the Ollama fake (one slot, a prompt cache, the tools
 * rendered first as Qwen's template does) at `tokensPerSecond` prompt tokens per second: what turn 2's prompt costs.
 */
export async function secondTurnOnOllama(
  design: 'after' | 'before',
  tokensPerSecond = 100,
  tools = agentTools(),
): Promise<SecondTurnOnOllama> {
  const { startOllamaFake } = await import('../test/fakes/ollama');
  const fake = await startOllamaFake({ promptTokensPerSecond: tokensPerSecond, timeScale: 0, defaultNumCtx: 32_768 });
  try {
    const [turn1, turn2] = conversationRequests(design, tools.length === agentTools().length);
    let last = { prompt_eval_count: 0, prompt_eval_duration: 0 };
    for (const messages of [...turn1, turn2[0]]) {
      const response = await fetch(`${fake.url}/api/chat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'qwen3:8b', messages, tools, stream: false }),
      });
      if (!response.ok) throw new Error(`the Ollama fake answered ${response.status}: ${await response.text()}`);
      last = (await response.json()) as typeof last;
    }
    const seconds = last.prompt_eval_duration / 1e9;
    return {
      promptTokens: last.prompt_eval_count,
      evaluatedTokens: Math.round(seconds * tokensPerSecond),
      promptEvalSeconds: seconds,
    };
  } finally {
    await fake.close();
  }
}

/** Characters of tool schemas as the chat model gets them (JSON), and ≈ tokens (assistant-core's estimate). */
export const schemaChars = (tools: Tool[]): number => JSON.stringify(tools).length;

/**
 * The tool schemas of a plain turn by registry group (issue 41, part 2): its tools, their schemas' characters as
 * one tool node each (before the routers) and as the group's router (the agent now).
 */
export function toolSchemasByGroup(): Array<{ group: string; tools: number; before: number; after: number }> {
  const before = new Map(toolsBeforeRouters().map((tool) => [tool.function.name, tool]));
  const after = new Map(agentTools().map((tool) => [tool.function.name, tool]));
  return TOOL_GROUPS.map((group) => {
    const tools = TOOL_REGISTRY.filter((entry) => entry.group === group);
    const router = after.get(TOOL_ROUTERS[group].name);
    if (!router) throw new Error(`the agent has no router tool "${TOOL_ROUTERS[group].name}" for ${group}`);
    return {
      group,
      tools: tools.length,
      before: tools.reduce((sum, entry) => sum + JSON.stringify(before.get(entry.name)).length, 0),
      after: JSON.stringify(router).length,
    };
  });
}

/**
 * Turn 2 of the conversation under Qwen2.5's template with a tool set: characters of its plain request (the first) and
 * of its tool request (the one after its tool call), and ≈ tokens (chars / 4).
 */
export function turnPrompts(tools: Tool[]): { plain: number; tool: number } {
  const [, turn2] = conversationRequests('after', tools.length === agentTools().length);
  return { plain: render('Qwen2.5', turn2[0], tools).length, tool: render('Qwen2.5', turn2[1], tools).length };
}

async function main(): Promise<void> {
  console.log('| template | design | turn 2 | turn 10 | within a turn (lowest) | prompt chars (turn 2) |');
  console.log('| --- | --- | --- | --- | --- | --- |');
  for (const name of Object.keys(TEMPLATES) as TemplateName[])
    for (const design of ['before', 'after'] as const) {
      const s = prefixShares(name, design);
      console.log(
        `| ${name} | ${design} | ${percent(s.acrossTurns[2])} | ${percent(s.acrossTurns[10])} | ${percent(s.withinTurn)} | ${s.promptChars.toLocaleString('en')} |`,
      );
    }
  const plain = { before: toolsBeforeRouters(), after: agentTools() };
  for (const design of ['before', 'after'] as const) {
    const chars = schemaChars(plain[design]);
    console.log(
      `tool schemas of a plain turn, ${design}: ${plain[design].length} tools, ${chars.toLocaleString('en')} characters, ≈ ${estimateTokens(JSON.stringify(plain[design])).toLocaleString('en')} tokens`,
    );
  }
  console.log('\n| group | tools | before: characters | ≈ tokens | after (router): characters | ≈ tokens |');
  console.log('| --- | --- | --- | --- | --- | --- |');
  const tokens = (chars: number) => Math.round(chars / 4).toLocaleString('en');
  for (const { group, tools, before, after } of toolSchemasByGroup()) {
    console.log(
      `| ${group} | ${tools} | ${before.toLocaleString('en')} | ${tokens(before)} | ${after.toLocaleString('en')} | ${tokens(after)} |`,
    );
  }
  console.log(
    '\n| tools | plain turn: prompt chars | ≈ tokens | tool turn: prompt chars | ≈ tokens | within a turn, Mistral v3 |',
  );
  console.log('| --- | --- | --- | --- | --- | --- |');
  for (const design of ['before', 'after'] as const) {
    const { plain: p, tool: t } = turnPrompts(plain[design]);
    const within = prefixShares('Mistral v3', 'after', plain[design]).withinTurn;
    console.log(
      `| ${plain[design].length} | ${p.toLocaleString('en')} | ${tokens(p)} | ${t.toLocaleString('en')} | ${tokens(t)} | ${percent(within)} |`,
    );
  }
  console.log('\n| tools | turn 2 prompt tokens | evaluated (not cached) | prompt evaluation at 100 tokens/s |');
  console.log('| --- | --- | --- | --- |');
  for (const design of ['before', 'after'] as const) {
    const turn = await secondTurnOnOllama('after', 100, plain[design]);
    console.log(
      `| ${plain[design].length} | ${turn.promptTokens.toLocaleString('en')} | ${turn.evaluatedTokens.toLocaleString('en')} | ${turn.promptEvalSeconds.toFixed(1)} s |`,
    );
  }
  console.log('\n| design | turn 2 prompt tokens | evaluated (not cached) | prompt evaluation at 100 tokens/s |');
  console.log('| --- | --- | --- | --- |');
  for (const design of ['before', 'after'] as const) {
    const turn = await secondTurnOnOllama(design);
    console.log(
      `| ${design} | ${turn.promptTokens.toLocaleString('en')} | ${turn.evaluatedTokens.toLocaleString('en')} | ${turn.promptEvalSeconds.toFixed(1)} s |`,
    );
  }
}

if (require.main === module) void main();
