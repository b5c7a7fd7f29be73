// What capture costs beside the conversation it reads (issue 33's benchmark): the ten-turn conversation of
// scripts/prompt-prefix.ts, rendered through Qwen2.5's real chat template, as the main agent's requests (its 49 tools,
// the static system message, the context block, the history window) and as one capture batch (the product's
// extractionRequest with record_extraction and its schema), and the extraction the chat fake's extractor gives for it
// as the capture's output (three facts the user mentions in passing). Tokens are the product's estimate (4 characters a token, as the gateway's fit check), the
// same for both sides, so the shares hold whatever the tokenizer. The prompt the cache cannot serve is what a server
// prefills again: the part not byte-identical to the request before (the agent's previous turn; for capture, the
// previous batch, whose system message and tool are the same). Run: npx tsx scripts/capture-cost.ts
import { extractionRequest } from 'assistant-core';
import { fakeExtraction } from '../test/fakes/extraction';
import {
  agentTools,
  conversationRequests,
  render,
  scriptedConversation,
  sharedPrefix,
  type Message,
  type Tool,
} from './prompt-prefix';

const TEMPLATE = 'Qwen2.5' as const;
const tokens = (chars: number) => Math.ceil(chars / 4);

interface Side {
  requests: number;
  promptTokens: number;
  /** Prompt tokens not byte-identical to the request before (what a server's prompt cache cannot serve). */
  uncachedTokens: number;
  outputTokens: number;
}

function agentSide(): Side {
  const tools = agentTools();
  const requests = conversationRequests('after').flat();
  const rendered = requests.map((messages) => render(TEMPLATE, messages, tools));
  const turns = scriptedConversation();
  const output = turns.reduce((sum, turn) => sum + turn.reply.length + (turn.tool ? 80 : 0), 0);
  return {
    requests: rendered.length,
    promptTokens: tokens(rendered.reduce((sum, prompt) => sum + prompt.length, 0)),
    uncachedTokens: tokens(
      rendered.reduce(
        (sum, prompt, i) => sum + prompt.length - (i === 0 ? 0 : sharedPrefix(rendered[i - 1], prompt)),
        0,
      ),
    ),
    outputTokens: tokens(output),
  };
}

/** Facts the user mentions in passing (added to three turns' messages for capture; the agent's side leaves these
 * ~150 characters out, under 0.2 % of its prompt). */
const FACTS = [
  'Stefan Huber from Huber & Partner is my accountant.',
  'Anna Berger replaces Stefan as my accountant from March.',
  "Anna's number is +43 660 1234567.",
];

/** The conversation as capture reads it: the user's words and the replies. */
function batchText(): string {
  return scriptedConversation()
    .flatMap((turn, i) => [
      `User: ${turn.message}${i % 3 === 0 && FACTS[i / 3] ? ` ${FACTS[i / 3]}` : ''}`,
      `Assistant: ${turn.reply}`,
    ])
    .join('\n\n');
}

function captureSide(): Side {
  const request = extractionRequest({ sourceText: batchText() }, { model: 'local' });
  const tools = request.tools as unknown as Tool[];
  const prompt = render(TEMPLATE, request.messages as Message[], tools);
  // The batch before: another conversation, same system message and tool.
  const before = render(
    TEMPLATE,
    extractionRequest({ sourceText: 'User: Another day.' }, { model: 'local' }).messages as Message[],
    tools,
  );
  const extraction = JSON.stringify(fakeExtraction(batchText()));
  return {
    requests: 1,
    promptTokens: tokens(prompt.length),
    uncachedTokens: tokens(prompt.length - sharedPrefix(before, prompt)),
    outputTokens: tokens(extraction.length),
  };
}

const agent = agentSide();
const capture = captureSide();
const share = (part: number, whole: number) => `${((100 * part) / whole).toFixed(1)} %`;
console.log('| ten-turn conversation | requests | prompt tokens | of which not cached | output tokens |');
console.log('| --------------------- | -------- | ------------- | ------------------- | ------------- |');
for (const [name, side] of [
  ['main agent', agent],
  ['capture (one batch)', capture],
] as const) {
  console.log(`| ${name} | ${side.requests} | ${side.promptTokens} | ${side.uncachedTokens} | ${side.outputTokens} |`);
}
const total = (side: Side) => side.promptTokens + side.outputTokens;
console.log(
  `\ncapture's share of the conversation's tokens: ${share(total(capture), total(agent) + total(capture))}; ` +
    `of the prompt a server prefills again: ${share(capture.uncachedTokens, agent.uncachedTokens + capture.uncachedTokens)}`,
);
