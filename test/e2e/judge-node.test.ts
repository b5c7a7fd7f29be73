// The Judge node on the real n8n: its type is listed, it judges items in a workflow (answers identical to the
// judge server's, routed by a choice question, with pairedItem), and an AI Agent calls it as a tool.
// The workflows here are created through the public API with throw-away credentials and deleted afterwards.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { OpenAiChatFakeControl, startOpenAiChatFake, type OpenAiChatFake } from '../fakes/openai-chat';
import { e2eStack } from './setup/harness';
import { E2E_JUDGE_KEY } from './setup/systemone-judge';

const stack = e2eStack();
const judgeUrl = stack.fakeUrls.E2E_SYSTEMONE_JUDGE_URL;
const JUDGE_TYPE = 'n8n-nodes-judge-assistant.judge';
const JUDGE_CREDENTIAL = { systemOneApi: { id: 'sysOneJudgeApi01', name: 'System One API (judge server)' } };
const webhookKey = randomBytes(16).toString('hex');

interface Created {
  id: string;
}
const createdWorkflows: string[] = [];
const createdCredentials: string[] = [];
let headerAuth: { id: string; name: string };

async function createWorkflow(name: string, nodes: unknown[], connections: unknown): Promise<string> {
  const workflow = await stack.api<Created>('/workflows', {
    method: 'POST',
    body: { name, nodes, connections, settings: { executionOrder: 'v1' } },
  });
  createdWorkflows.push(workflow.id);
  await stack.api(`/workflows/${workflow.id}/activate`, { method: 'POST' });
  return workflow.id;
}

const webhookNode = (path: string, responseMode: string) => ({
  id: randomBytes(8).toString('hex'),
  name: 'Webhook',
  type: 'n8n-nodes-base.webhook',
  typeVersion: 2.1,
  position: [0, 0],
  webhookId: crypto.randomUUID(),
  parameters: { httpMethod: 'POST', path, authentication: 'headerAuth', responseMode, options: {} },
  credentials: { httpHeaderAuth: headerAuth },
});

async function callWebhook(path: string, body: unknown): Promise<{ status: number; body: unknown }> {
  const response = await stack.webhook(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${webhookKey}` },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // keep the text for the assertion message
  }
  return { status: response.status, body: parsed };
}

async function judgeDirectly(request: unknown): Promise<{ answers: Record<string, Record<string, unknown>> }> {
  const response = await fetch(`${judgeUrl}/v1/systemone`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${E2E_JUDGE_KEY}` },
    body: JSON.stringify(request),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as { answers: Record<string, Record<string, unknown>> };
}

beforeAll(async () => {
  const credential = await stack.api<Created & { name: string }>('/credentials', {
    method: 'POST',
    body: {
      name: 'Judge e2e webhook key',
      type: 'httpHeaderAuth',
      data: { name: 'Authorization', value: `Bearer ${webhookKey}` },
    },
  });
  createdCredentials.push(credential.id);
  headerAuth = { id: credential.id, name: credential.name };
});

afterAll(async () => {
  for (const id of createdWorkflows) {
    await stack.api(`/workflows/${id}/deactivate`, { method: 'POST' }).catch(() => undefined);
    await stack.api(`/workflows/${id}`, { method: 'DELETE' }).catch(() => undefined);
  }
  for (const id of createdCredentials)
    await stack.api(`/credentials/${id}`, { method: 'DELETE' }).catch(() => undefined);
});

async function editorCookie(): Promise<string> {
  const login = await fetch(`${stack.n8nUrl}/rest/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ emailOrLdapLoginId: stack.owner.email, password: stack.owner.password }),
  });
  expect(login.status).toBe(200);
  return login.headers
    .getSetCookie()
    .map((cookie) => cookie.split(';')[0])
    .join('; ');
}

describe('the Judge node type', () => {
  it('is listed by the running n8n, with its tool variant and credentials', async () => {
    const cookie = await editorCookie();
    const response = await fetch(`${stack.n8nUrl}/types/nodes.json`, { headers: { cookie } });
    expect(response.status).toBe(200);
    const types = (await response.json()) as Array<{
      name: string;
      version: number | number[];
      credentials?: Array<{ name: string }>;
    }>;
    const judge = types.find((type) => type.name === JUDGE_TYPE);
    expect(judge?.version).toBe(1);
    expect(judge?.credentials?.map((credential) => credential.name)).toEqual([
      'systemOneApi',
      'systemOneInboundKeyApi',
    ]);
    expect(types.some((type) => type.name === `${JUDGE_TYPE}Tool`)).toBe(true);
    const credentialTypes = (await (
      await fetch(`${stack.n8nUrl}/types/credentials.json`, { headers: { cookie } })
    ).json()) as Array<{
      name: string;
    }>;
    expect(credentialTypes.map((type) => type.name)).toEqual(
      expect.arrayContaining(['systemOneApi', 'systemOneInboundKeyApi']),
    );
  });
});

interface JudgedItem {
  json: { answers: Record<string, { choice?: string }> };
  pairedItem: { item: number };
}
type RunData = Record<string, Array<{ data: { main: Array<JudgedItem[] | null> }; error?: { message: string } }>>;
interface FinishedExecution {
  status: string;
  data: { resultData: { runData: RunData; error?: { message: string; description?: string } } };
}

/** The workflow's first finished execution, with its data (polled: webhooks may answer before it is saved). */
async function finishedExecution(workflowId: string): Promise<FinishedExecution> {
  for (let attempt = 0; attempt < 150; attempt++) {
    const executions = await stack.api<{ data: Array<{ id: string; status: string }> }>(
      `/executions?workflowId=${workflowId}`,
    );
    const done = executions.data.find((execution) => execution.status === 'success' || execution.status === 'error');
    if (done) return stack.api<FinishedExecution>(`/executions/${done.id}?includeData=true`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`workflow ${workflowId}: no finished execution after 30 s`);
}

describe('the Judge node in a workflow', () => {
  const questions = {
    question: [
      { name: 'urgent', type: 'noul', instructions: 'Does the customer need an answer today?' },
      {
        name: 'topic',
        type: 'choice',
        instructions: 'What is the ticket about?',
        options: {
          option: [{ label: 'billing', description: 'payments and invoices' }, { label: 'bug' }, { label: 'other' }],
        },
      },
      {
        name: 'anger',
        type: 'score',
        levels: { level: [{ description: 'calm' }, { description: 'annoyed' }, { description: 'angry' }] },
      },
    ],
  };
  const wireQuestions = {
    urgent: { type: 'noul', instructions: 'Does the customer need an answer today?' },
    topic: {
      type: 'choice',
      instructions: 'What is the ticket about?',
      criteria: { billing: 'payments and invoices', bug: null, other: null },
    },
    anger: { type: 'score', criteria: ['calm', 'annoyed', 'angry'] },
  };
  const tickets = [
    'I was charged twice for my subscription.',
    'The export button crashes the app every time.',
    'Do you have an office in Lisbon?',
    'Refund me now or I cancel!!!',
  ];

  it('judges every item like the judge server, routes it by the chosen option, and pairs it with its input', async () => {
    const path = `judge-e2e-items-${randomBytes(4).toString('hex')}`;
    const workflowId = await createWorkflow(
      'Judge e2e: items routed by topic',
      [
        webhookNode(path, 'onReceived'),
        {
          id: randomBytes(8).toString('hex'),
          name: 'Tickets',
          type: 'n8n-nodes-base.splitOut',
          typeVersion: 1,
          position: [200, 0],
          parameters: { fieldToSplitOut: 'body.tickets', options: {} },
        },
        {
          id: randomBytes(8).toString('hex'),
          name: 'Judge',
          type: JUDGE_TYPE,
          typeVersion: 1,
          position: [400, 0],
          parameters: {
            mode: 'judge',
            model: 'jev-latest',
            stateFormat: 'text',
            state: '={{ $json.text }}',
            questions,
            routeBy: 'choice',
            routeQuestion: 'topic',
          },
          credentials: JUDGE_CREDENTIAL,
        },
      ],
      {
        Webhook: { main: [[{ node: 'Tickets', type: 'main', index: 0 }]] },
        Tickets: { main: [[{ node: 'Judge', type: 'main', index: 0 }]] },
      },
    );

    const reply = await callWebhook(path, { tickets: tickets.map((text) => ({ text })) });
    expect(reply.status).toBe(200);

    const execution = await finishedExecution(workflowId);
    expect(execution.status).toBe('success');
    const runData = execution.data.resultData.runData;
    const outputs = runData.Judge[0].data.main.map((output) => output ?? []);
    expect(outputs).toHaveLength(3);
    expect(outputs.flat()).toHaveLength(tickets.length);

    const labels = ['billing', 'bug', 'other'];
    for (const [outputIndex, output] of outputs.entries()) {
      for (const item of output) {
        const ticket = tickets[item.pairedItem.item];
        const expected = await judgeDirectly({ model: 'jev-latest', state: ticket, questions: wireQuestions });
        expect(item.json.answers).toEqual(expected.answers);
        expect(item.json.answers.topic.choice).toBe(labels[outputIndex]);
      }
    }
  });

  it('fails the execution with the field named when a question is invalid', async () => {
    const path = `judge-e2e-invalid-${randomBytes(4).toString('hex')}`;
    const workflowId = await createWorkflow(
      'Judge e2e: invalid question',
      [
        webhookNode(path, 'lastNode'),
        {
          id: randomBytes(8).toString('hex'),
          name: 'Judge',
          type: JUDGE_TYPE,
          typeVersion: 1,
          position: [200, 0],
          parameters: {
            mode: 'judge',
            model: 'jev-latest',
            state: '={{ $json.body.text }}',
            questions: { question: [{ name: 'size', type: 'score', levels: { level: [{ description: 'small' }] } }] },
          },
          credentials: JUDGE_CREDENTIAL,
        },
      ],
      { Webhook: { main: [[{ node: 'Judge', type: 'main', index: 0 }]] } },
    );
    const reply = await callWebhook(path, { text: 'a parcel' });
    expect(reply.status).toBe(500);
    const execution = await finishedExecution(workflowId);
    expect(execution.status).toBe('error');
    expect(execution.data.resultData.error?.message).toContain('Questions[1] ("size").Levels');
    expect(execution.data.resultData.runData.Judge[0]).toMatchObject({
      error: { message: expect.stringContaining('2 to 10 levels') },
    });
  });
});

describe('the Judge node as an AI Agent tool', () => {
  let chat: OpenAiChatFake;
  let control: OpenAiChatFakeControl;

  beforeAll(async () => {
    chat = await startOpenAiChatFake();
    control = new OpenAiChatFakeControl(chat.url);
  });
  afterAll(async () => chat?.close());

  it('is called by the agent with the arguments the model chose, and its answer reaches the reply', async () => {
    const openAi = await stack.api<Created & { name: string }>('/credentials', {
      method: 'POST',
      body: {
        name: 'Judge e2e fake OpenAI',
        type: 'openAiApi',
        data: { apiKey: 'sk-fake-e2e', url: `${chat.url}/v1`, header: false },
      },
    });
    createdCredentials.push(openAi.id);

    const marker = `judge-agent-${randomBytes(4).toString('hex')}`;
    const ticket = 'I was charged twice for my subscription, fix it today!';
    await control.addScript(marker, [
      { tool_calls: [{ name: 'Judge_Ticket', arguments: { ticket } }] },
      { content: 'The judge said: {{last_tool_result}}' },
    ]);

    const path = `judge-e2e-agent-${randomBytes(4).toString('hex')}`;
    await createWorkflow(
      'Judge e2e: agent tool',
      [
        webhookNode(path, 'lastNode'),
        {
          id: randomBytes(8).toString('hex'),
          name: 'AI Agent',
          type: '@n8n/n8n-nodes-langchain.agent',
          typeVersion: 3,
          position: [200, 0],
          parameters: { promptType: 'define', text: '={{ $json.body.message }}', options: {} },
        },
        {
          id: randomBytes(8).toString('hex'),
          name: 'OpenAI Chat Model',
          type: '@n8n/n8n-nodes-langchain.lmChatOpenAi',
          typeVersion: 1.3,
          position: [100, 200],
          parameters: {
            model: { __rl: true, mode: 'id', value: 'gpt-4o-mini' },
            responsesApiEnabled: false,
            options: {},
          },
          credentials: { openAiApi: { id: openAi.id, name: openAi.name } },
        },
        {
          id: randomBytes(8).toString('hex'),
          name: 'Judge Ticket',
          type: `${JUDGE_TYPE}Tool`,
          typeVersion: 1,
          position: [300, 200],
          parameters: {
            toolDescription: 'Judges a support ticket: is it urgent?',
            mode: 'judge',
            model: 'jev-latest',
            state: "={{ $fromAI('ticket', 'The ticket text to judge', 'string') }}",
            questions: {
              question: [{ name: 'urgent', type: 'noul', instructions: 'Does the customer need an answer today?' }],
            },
          },
          credentials: JUDGE_CREDENTIAL,
        },
      ],
      {
        Webhook: { main: [[{ node: 'AI Agent', type: 'main', index: 0 }]] },
        'OpenAI Chat Model': { ai_languageModel: [[{ node: 'AI Agent', type: 'ai_languageModel', index: 0 }]] },
        'Judge Ticket': { ai_tool: [[{ node: 'AI Agent', type: 'ai_tool', index: 0 }]] },
      },
    );

    const reply = await callWebhook(path, { message: `${marker}: is this ticket urgent? ${ticket}` });
    expect(reply.status).toBe(200);
    const expected = await judgeDirectly({
      model: 'jev-latest',
      state: ticket,
      questions: { urgent: { type: 'noul', instructions: 'Does the customer need an answer today?' } },
    });
    const output = (reply.body as { output: string }).output;
    expect(output.startsWith('The judge said: ')).toBe(true);
    expect(output).toContain(`"noul":${String(expected.answers.urgent.noul)}`);

    const requests = await control.requests(marker);
    expect(requests.length).toBe(2);
    expect(requests[0].body.tools?.map((tool) => tool.function.name)).toContain('Judge_Ticket');
  });
});
