// The agent on the web, on the real n8n + Postgres 17 and the stack's browser service (real headless Chromium): it
// answers a question by searching (the keyless DuckDuckGo backend, served in its real format by a loopback fake) and
// reading the result (the article without its navigation and ads); a page that needs JavaScript is rendered; n8n's
// own API and a loopback port not on the allow list are refused with a clear tool message.
import { beforeAll, describe, expect, it } from 'vitest';
import { OpenAiChatFakeControl } from '../fakes/openai-chat';
import { JS_FACT, ZOO_FACT } from '../fakes/web-site';
import { e2eStack, type E2EStack } from './setup/harness';
import { E2E_ASSISTANT_API_KEY } from './setup/secrets';
import { viaRouter } from './setup/tool-calls';

const run = Math.random().toString(36).slice(2, 8);
let stack: E2EStack;
let llm: OpenAiChatFakeControl;
let site: string;

async function ask(marker: string, message: string): Promise<{ status: number; reply: string }> {
  const response = await stack.webhook('agent', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': E2E_ASSISTANT_API_KEY },
    body: JSON.stringify({ message: `${message} ${marker}`, user_id: `web-${run}` }),
  });
  const body = (await response.json()) as { reply?: string };
  return { status: response.status, reply: body.reply ?? JSON.stringify(body) };
}

beforeAll(async () => {
  stack = e2eStack();
  llm = new OpenAiChatFakeControl(stack.fakeUrls.E2E_OPENAI_CHAT_URL);
  site = stack.fakeUrls.E2E_WEB_SITE_URL;
  await stack.api('/credentials/asstApiKeyHdr001', {
    method: 'PATCH',
    body: { data: { name: 'X-API-Key', value: E2E_ASSISTANT_API_KEY } },
  });
});

describe('web search and read_page through the agent', () => {
  it('answers by searching and reading: the article text, without navigation and ads', async () => {
    const marker = `[web-zoo-${run}]`;
    await llm.addScript(marker, [
      { tool_calls: [viaRouter('web_search', { query: 'riverside zoo opening hours', max_results: '' })] },
      { tool_calls: [viaRouter('read_page', { url: `${site}/articles/zoo`, max_chars: '' })] },
      { content: 'From the zoo site: {{last_tool_result}}' },
    ]);
    const answer = await ask(marker, 'When is the Riverside Zoo open?');
    expect(answer.status).toBe(200);
    expect(answer.reply).toContain(ZOO_FACT);
    expect(answer.reply).not.toContain('ADVERTISEMENT');
    expect(answer.reply).not.toContain('NAVIGATION-MENU-TEXT');
    // The search step really ran: its results reached the model with the article's URL.
    const requests = await llm.requests(marker);
    const afterSearch = JSON.stringify(requests.find((r) => r.step === 1)?.body.messages ?? []);
    expect(afterSearch).toContain(`${site}/articles/zoo`);
    expect(afterSearch).toContain('Riverside Zoo: opening hours');
  });

  it('renders a page whose text a script inserts, in the browser service', async () => {
    const marker = `[web-js-${run}]`;
    await llm.addScript(marker, [
      { tool_calls: [viaRouter('read_page', { url: `${site}/articles/night-tour`, max_chars: '' })] },
      { content: 'Read: {{last_tool_result}}' },
    ]);
    const answer = await ask(marker, 'When do night tour tickets go on sale?');
    expect(answer.status).toBe(200);
    expect(answer.reply).toContain(JS_FACT);
  });

  it("refuses n8n's own API and a loopback port not on the allow list, with a message the agent can relay", async () => {
    const marker = `[web-refused-${run}]`;
    const n8nApi = `${stack.n8nUrl}/rest/settings`;
    await llm.addScript(marker, [
      { tool_calls: [viaRouter('read_page', { url: n8nApi, max_chars: '' })] },
      { content: 'First: {{last_tool_result}}' },
    ]);
    const first = await ask(marker, 'Read the n8n settings');
    expect(first.status).toBe(200);
    expect(first.reply).toMatch(/n8n instance's own API/);
    const other = `[web-closed-${run}]`;
    await llm.addScript(other, [
      { tool_calls: [viaRouter('read_page', { url: 'http://127.0.0.1:9/secret', max_chars: '' })] },
      { content: 'Second: {{last_tool_result}}' },
    ]);
    const second = await ask(other, 'Read the local page');
    expect(second.status).toBe(200);
    expect(second.reply).toMatch(/refused|not allowed|loopback/i);
    expect(second.reply).not.toMatch(/\n\s+at /);
  });
});
