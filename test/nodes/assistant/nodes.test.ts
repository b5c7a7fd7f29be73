// The assistant nodes' execute(), driven through a minimal IExecuteFunctions against a real Postgres 17:
// parameters per item, n8n's postgres credential, errors that name the field and the item, continueOnFail.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NodeOperationError, type IExecuteFunctions, type INode, type INodeExecutionData, type INodeType } from 'n8n-workflow';
import { AssistantContext } from '../../../nodes/AssistantContext/AssistantContext.node';
import { AssistantKnowledgeGraph } from '../../../nodes/AssistantKnowledgeGraph/AssistantKnowledgeGraph.node';
import { AssistantMemory } from '../../../nodes/AssistantMemory/AssistantMemory.node';
import { AssistantTasks } from '../../../nodes/AssistantTasks/AssistantTasks.node';
import { closeSharedPools, poolConfigFromCredential, type PostgresCredential } from 'assistant-core';
import { startPostgres, type PostgresServer } from '../../../scripts/runtime/postgres';

let server: PostgresServer;
let credential: PostgresCredential;

beforeAll(async () => {
  // A fresh database: the nodes create the schema themselves on first use.
  server = await startPostgres({ database: 'assistant_nodes', password: 'node-test-secret' });
  credential = { host: server.host, port: server.port, database: server.database, user: server.user, password: server.password, ssl: 'disable' };
});
afterAll(async () => {
  await closeSharedPools();
  await server?.stop();
});

type Params = Record<string, unknown>;

/** Runs a node over items, each with its own parameters (as n8n would after resolving expressions). */
async function run(node: INodeType, items: Params[], options: { continueOnFail?: boolean } = {}): Promise<INodeExecutionData[]> {
  const nodeInfo: INode = { id: 'n1', name: node.description.displayName, type: node.description.name, typeVersion: 1, position: [0, 0], parameters: {} };
  const context = {
    getInputData: () => items.map(() => ({ json: {} })),
    getNodeParameter: (name: string, itemIndex: number, fallback?: unknown) => (name in items[itemIndex] ? items[itemIndex][name] : fallback),
    getCredentials: async (type: string) => {
      expect(type).toBe('postgres');
      return credential;
    },
    getNode: () => nodeInfo,
    continueOnFail: () => options.continueOnFail ?? false,
  } as unknown as IExecuteFunctions;
  const [output] = (await node.execute!.call(context)) as INodeExecutionData[][];
  return output;
}

describe('node descriptions', () => {
  it.each([new AssistantContext(), new AssistantMemory(), new AssistantKnowledgeGraph(), new AssistantTasks()])('$description.displayName is a tool on the postgres credential', (node) => {
    expect(node.description.usableAsTool).toBe(true);
    // The Memory node may also have an embeddings endpoint (optional).
    const optional = node instanceof AssistantMemory ? [{ name: 'assistantEmbeddingsApi', required: false }] : [];
    expect(node.description.credentials).toEqual([{ name: 'postgres', required: true }, ...optional]);
    expect(node.description.icon).toMatch(/^file:.+\.svg$/);
    const operation = node.description.properties.find((p) => p.name === 'operation')!;
    for (const option of operation.options as { action?: string }[]) expect(option.action).toBeTruthy();
  });
});

describe('postgres credential', () => {
  it('maps n8n credential fields to a pg pool config, and refuses SSH tunnels', () => {
    expect(poolConfigFromCredential({ host: 'db', port: 6543, database: 'x', user: 'u', password: 'p', ssl: 'require', allowUnauthorizedCerts: true })).toMatchObject({
      host: 'db',
      port: 6543,
      ssl: { rejectUnauthorized: false },
    });
    expect(poolConfigFromCredential({ ssl: 'disable' }).ssl).toBe(false);
    expect(() => poolConfigFromCredential({ sshTunnel: true })).toThrow(/SSH tunnel/);
  });
});

describe('the nodes on a real database', () => {
  it('resolve → remember → recall → graph → tasks → turn → context, the way the agent workflow uses them', async () => {
    const [resolved] = await run(new AssistantContext(), [{ operation: 'resolveIdentity', channel: 'api', externalId: 'node-user' }]);
    const userId = resolved.json.userId as string;
    expect(resolved.json).toMatchObject({ identity: 'api:node-user', created: true });
    expect(resolved.pairedItem).toEqual({ item: 0 });

    const [remembered] = await run(new AssistantMemory(), [
      { operation: 'remember', userId, content: 'Stefan Huber runs the Vienna office', details: { people: 'Stefan Huber', entities: 'Vienna', importance: 4, kind: 'fact' } },
    ]);
    expect(remembered.json.memory).toMatchObject({ people: ['Stefan Huber'], entities: ['Vienna'], importance: 4 });
    const memoryId = (remembered.json.memory as { id: number }).id;
    const [kept] = await run(new AssistantMemory(), [{ operation: 'update', userId, memoryId, updateFields: { content: '', people: '', entities: 'none' } }]);
    expect(kept.json.memory).toMatchObject({ content: 'Stefan Huber runs the Vienna office', people: ['Stefan Huber'], entities: [] });
    const [recalled] = await run(new AssistantMemory(), [{ operation: 'recall', userId, query: 'Who is Stefan?', limit: 5, kindFilter: '' }]);
    expect(recalled.json).toMatchObject({ count: 1, memories: [{ content: 'Stefan Huber runs the Vienna office' }] });

    await run(new AssistantKnowledgeGraph(), [{ operation: 'relate', userId, from: 'Stefan Huber', relation: 'manages', to: 'Vienna office', validFrom: '', validTo: '' }]);
    const [graph] = await run(new AssistantKnowledgeGraph(), [{ operation: 'query', userId, name: 'stefan', depth: 2, includeEnded: false }]);
    expect(graph.json).toMatchObject({ entity: { name: 'Stefan Huber' }, neighbours: [{ name: 'Vienna office', depth: 1 }] });

    const [created] = await run(new AssistantTasks(), [{ operation: 'create', userId, title: 'Call Stefan', details: { priority: 'urgent', dueAt: '2020-01-01T09:00:00Z', parentId: 0 } }]);
    const taskId = (created.json.task as { id: number }).id;
    const [overdue] = await run(new AssistantTasks(), [{ operation: 'list', userId, filters: { overdue: true } }]);
    expect(overdue.json).toMatchObject({ count: 1, tasks: [{ id: taskId, overdue: true }] });
    const [unchanged] = await run(new AssistantTasks(), [{ operation: 'update', userId, taskId, updateFields: { dueAt: '', title: '', priority: '' } }]);
    expect(unchanged.json.task).toMatchObject({ title: 'Call Stefan', priority: 'urgent', dueAt: '2020-01-01T09:00:00.000Z' });
    const [updated] = await run(new AssistantTasks(), [{ operation: 'update', userId, taskId, updateFields: { dueAt: 'none' } }]);
    expect(updated.json.task).toMatchObject({ dueAt: null, overdue: false });
    const [completed] = await run(new AssistantTasks(), [{ operation: 'complete', userId, taskId }]);
    expect(completed.json.task).toMatchObject({ status: 'done' });
    const [deleted] = await run(new AssistantTasks(), [{ operation: 'delete', userId, taskId, withSubtasks: false }]);
    expect(deleted.json).toEqual({ deleted: [taskId] });

    await run(new AssistantContext(), [
      { operation: 'storeTurn', userId, sessionId: 's', userMessage: 'Costs "$1" 😀', assistantReply: 'Noted.', turnChannel: 'api', metadata: '{"via":"test"}' },
    ]);
    const [context] = await run(new AssistantContext(), [{ operation: 'loadContext', userId, sessionId: 's', message: 'Stefan?', tokenBudget: 2000, memoryLimit: 8 }]);
    expect(context.json.messages).toEqual([
      { role: 'user', content: 'Costs "$1" 😀' },
      { role: 'assistant', content: 'Noted.' },
    ]);
    expect(context.json.systemPrompt).toContain('Stefan Huber runs the Vienna office');
  });

  it('owner check and settings through the node', async () => {
    const [instance] = await run(new AssistantContext(), [{ operation: 'updateInstanceSettings', instanceSettings: { ownerTelegramChatId: '4242', assistantName: 'Ada', chatModel: 'llama3.1' } }]);
    expect(instance.json).toMatchObject({ ownerTelegramChatId: '4242', chatModel: 'llama3.1' });
    const checks = await run(new AssistantContext(), [
      { operation: 'checkTelegramChat', chatId: '4242' },
      { operation: 'checkTelegramChat', chatId: '9999' },
    ]);
    expect(checks.map((c) => c.json)).toEqual([
      { chatId: '4242', allowed: true },
      { chatId: '9999', allowed: false },
    ]);
    const [resolved] = await run(new AssistantContext(), [{ operation: 'resolveIdentity', channel: 'telegram', externalId: '4242' }]);
    const [settings] = await run(new AssistantContext(), [{ operation: 'updateSettings', userId: resolved.json.userId, settings: { timeZone: 'Europe/Vienna' } }]);
    expect(settings.json).toMatchObject({ assistantName: 'Ada', timeZone: 'Europe/Vienna' });
  });

  it('fails with a NodeOperationError naming the field and the item', async () => {
    const [resolved] = await run(new AssistantContext(), [{ operation: 'resolveIdentity', channel: 'api', externalId: 'errors' }]);
    const userId = resolved.json.userId;
    const error = await run(new AssistantTasks(), [
      { operation: 'create', userId, title: 'fine', details: {} },
      { operation: 'create', userId, title: 'bad', details: { priority: 'asap' } },
    ]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NodeOperationError);
    expect((error as NodeOperationError).message).toMatch(/^priority: must be one of low, medium, high, urgent/);
    expect((error as NodeOperationError).context.itemIndex).toBe(1);
    const missingUser = await run(new AssistantMemory(), [{ operation: 'recall', userId: '', query: 'x' }]).catch((e: unknown) => e);
    expect((missingUser as Error).message).toMatch(/^userId: /);
  });

  it('with continueOnFail, reports each failing item as {error, field} and carries on', async () => {
    const [resolved] = await run(new AssistantContext(), [{ operation: 'resolveIdentity', channel: 'api', externalId: 'continue' }]);
    const userId = resolved.json.userId;
    const out = await run(
      new AssistantMemory(),
      [
        { operation: 'remember', userId, content: '', details: {} },
        { operation: 'forget', userId, memoryId: 123456 },
        { operation: 'remember', userId, content: 'ok', details: {} },
      ],
      { continueOnFail: true },
    );
    expect(out[0].json).toMatchObject({ field: 'content', error: 'content: must be a non-empty string' });
    expect(out[1].json).toMatchObject({ field: 'memoryId' });
    expect(out[2].json.memory).toMatchObject({ content: 'ok' });
    expect(out.map((o) => o.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
  });
});
