// How much of each main-agent request a model server's prompt cache can serve: a scripted conversation is rendered,
// request by request, through real chat templates (Qwen2.5 and Llama 3.1 from their tokenizer configs, a Mistral v3
// template written from mistral-common's format) with the agent's real tools (from workflows/assistant-agent.json, as
// n8n builds them from $fromAI) and the product's own system prompt, context block and history window; the share of a
// request that is byte-identical to the start of the request before it is what the cache keeps. "before" renders the
// same conversation the way the agent was built before issue 41 (the time and the memories in the system message, a
// history window that slides by one message). Run: npx tsx scripts/prompt-prefix.ts
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Template } from '@huggingface/jinja';
import { contextBlock, estimateTokens, historyWindow, systemPrompt } from 'assistant-core';
import { TOOL_GROUPS, TOOL_REGISTRY } from '../assistant/src/tools/registry';

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

/** The agent's tools as the chat model gets them: each tool node, its description, its $fromAI fields. */
export function agentTools(): Tool[] {
  const fromAi = /\$fromAI\('([^']+)',\s*'((?:[^'\\]|\\.)*)',\s*'([a-z]+)'/g;
  return agentWorkflow()
    .nodes.filter((node) => node.type === '@n8n/n8n-nodes-langchain.toolWorkflow')
    .map((node) => {
      const properties: Record<string, { type: string; description: string }> = {};
      for (const [, key, description, type] of JSON.stringify(node.parameters.workflowInputs).matchAll(fromAi))
        properties[key] = { type, description: description.replace(/\\'/g, "'") };
      return {
        type: 'function',
        function: {
          name: node.name,
          description: String(node.parameters.description ?? ''),
          parameters: { type: 'object', properties, required: Object.keys(properties) },
        },
      };
    });
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
  tool?: { name: string; arguments: Record<string, string>; result: string };
  reply: string;
}

/** Ten turns of an ordinary conversation: small talk, a remembered fact, a task, a reminder, recalled memories. */
export function scriptedConversation(): ScriptedTurn[] {
  const topics = ['the garden', 'my sister Eva', 'the tax return', 'a trip to Graz', 'the bees', 'dinner'];
  return Array.from({ length: 10 }, (_, i) => ({
    message: `Turn ${i + 1}: what do you think about ${topics[i % topics.length]}? ${'Some more words. '.repeat(3 + (i % 4))}`,
    memories: i % 3 === 0 ? [] : [`Eva's birthday is on 3 May (${i})`, `The bees live behind the shed (${i})`],
    tool:
      i % 2 === 1
        ? {
            name: 'remember_memory',
            arguments: { content: `fact ${i + 1}`, people: '' },
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
export function conversationRequests(design: 'after' | 'before'): Message[][][] {
  const turns = scriptedConversation();
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

export function prefixShares(name: TemplateName, design: 'after' | 'before'): PrefixShares {
  const tools = agentTools();
  const rendered = conversationRequests(design).map((turn) => turn.map((request) => render(name, request, tools)));
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
): Promise<SecondTurnOnOllama> {
  const { startOllamaFake } = await import('../test/fakes/ollama');
  const fake = await startOllamaFake({ promptTokensPerSecond: tokensPerSecond, timeScale: 0, defaultNumCtx: 32_768 });
  const tools = agentTools();
  try {
    const [turn1, turn2] = conversationRequests(design);
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

/** The agent's tool schemas by registry group (issue 41, part 2): tools and characters of JSON schema per group. */
export function toolSchemasByGroup(): Array<{ group: string; tools: number; chars: number }> {
  const byName = new Map(agentTools().map((tool) => [tool.function.name, tool]));
  return TOOL_GROUPS.map((group) => {
    const tools = TOOL_REGISTRY.filter((entry) => entry.group === group && byName.has(entry.name));
    return {
      group,
      tools: tools.length,
      chars: tools.reduce((sum, entry) => sum + JSON.stringify(byName.get(entry.name)).length, 0),
    };
  });
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
  console.log(
    `tool schemas: ${agentTools().length} tools, ${JSON.stringify(agentTools()).length.toLocaleString('en')} characters`,
  );
  console.log('\n| group | tools | schema characters | ≈ tokens |');
  console.log('| --- | --- | --- | --- |');
  for (const { group, tools, chars } of toolSchemasByGroup()) {
    console.log(
      `| ${group} | ${tools} | ${chars.toLocaleString('en')} | ${Math.round(chars / 4).toLocaleString('en')} |`,
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
