// Installing catalogue experts on a real Postgres 17, against a loopback server speaking n8n's public API: only the
// operator's answered yes to the approval question about that very expert creates, tags and publishes its workflow and
// registers it; a no, no answer, another expert's question or another user's installs nothing; a failed publish leaves
// nothing behind; removing deletes the workflow and the registration. The e2e test does the same against real n8n.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import * as assistant from '../../src';
import { startN8nPublicApiFake, type N8nPublicApiFake } from '../../../test/fakes/n8n-public-api';
import { useAssistantDatabase } from '../database';
import { createUser, expectFieldError } from '../helpers';

const API_KEY = 'n8n-api-key-for-tests';
const agentWorkflow = JSON.parse(
  readFileSync(path.join(__dirname, '../../../workflows/assistant-agent.json'), 'utf8'),
) as assistant.WorkflowJson & { id: string };

const db = useAssistantDatabase();
let n8n: N8nPublicApiFake;
let api: assistant.WorkflowApi;
let operator: string;
let stranger: string;

const EXPERT = 'travel-planner';

/** The operator is asked about `expertId` and answers `answer`. */
async function answeredApproval(expertId: string, answer: string, userId = operator) {
  const { question } = await assistant.approvalQuestion(db.pool, { userId: operator, expertId });
  const asked = await assistant.askUser(db.pool, userId, { kind: 'approval', question });
  await assistant.recordAnswer(db.pool, asked.id, answer, 0);
  return asked.id;
}

beforeAll(async () => {
  n8n = await startN8nPublicApiFake(API_KEY, [{ ...agentWorkflow, active: true, tags: [] }]);
  api = assistant.publicWorkflowApi(n8n.baseUrl, API_KEY);
  operator = (await assistant.resolveIdentity(db.pool, 'api', assistant.OPERATOR_API_USER_ID)).userId;
  stranger = await createUser(db.pool, 'stranger');
});
afterAll(async () => {
  await n8n?.close();
});
beforeEach(async () => {
  await db.pool.query(`DELETE FROM assistant.experts WHERE source = 'catalogue'`);
  for (const id of [...n8n.workflows.keys()]) if (id !== agentWorkflow.id) n8n.workflows.delete(id);
});

describe('renderExpertWorkflow', () => {
  it('renders every catalogue entry with its prompt, its model and exactly its tools, bound to its own trigger', () => {
    for (const entry of assistant.loadCatalogue()) {
      const workflow = assistant.renderExpertWorkflow(entry, agentWorkflow);
      const names = workflow.nodes.map((node) => node.name);
      expect(new Set(names).size, entry.id).toBe(names.length);
      const tools = workflow.nodes.filter((node) => node.type === '@n8n/n8n-nodes-langchain.toolWorkflow');
      expect(tools.map((node) => node.name).sort()).toEqual([...entry.tools].sort());
      const agent = workflow.nodes.find((node) => node.name === `${entry.name} Agent`)!;
      expect(agent.parameters.options).toEqual({ systemMessage: entry.systemPrompt, maxIterations: 8 });
      expect(workflow.nodes.find((node) => node.name === 'Expert Settings')?.parameters).toEqual({
        operation: 'expertSettings',
        expertId: entry.id,
      });
      const model = workflow.nodes.find((node) => node.name === 'Expert Model')!;
      expect(model.credentials).toEqual(agentWorkflow.nodes.find((node) => node.name === 'Chat Model')?.credentials);
      expect(JSON.stringify(model.parameters)).toContain("$('Expert Settings').first().json.model");
      expect(model.parameters.options).toMatchObject({
        timeout: "={{ $('Expert Settings').first().json.modelTimeoutSeconds * 1000 }}",
      });
      // Every tool and the model feed the expert's agent; nothing still points at the main agent's turn.
      for (const tool of tools) expect(workflow.connections[tool.name].ai_tool[0][0].node).toBe(agent.name);
      expect(workflow.connections['Expert Model'].ai_languageModel[0][0].node).toBe(agent.name);
      expect(JSON.stringify(workflow)).not.toContain("$('Turn to Run')");
      expect(JSON.stringify(workflow)).toContain("$('Task for the Expert').first().json.user_id");
      // Two model calls at the longest timeout and a minute, and the wait for the user's answer when it may ask.
      expect(workflow.settings).toMatchObject({
        executionTimeout: entry.tools.includes('ask_user') ? 1560 : 1260,
        errorWorkflow: agentWorkflow.settings?.errorWorkflow,
      });
      expect(Object.keys(workflow).sort()).toEqual(['connections', 'name', 'nodes', 'settings']);
    }
  });

  it('refuses a tool the main agent workflow does not have, naming it', () => {
    const entry = { ...assistant.loadCatalogue()[0], tools: ['web_search', 'send_fax'] };
    expect(() => assistant.renderExpertWorkflow(entry, agentWorkflow)).toThrow(/tools: "send_fax" is not a tool/);
  });
});

describe('isApproval', () => {
  it('takes a yes, and nothing else, as approval', () => {
    for (const yes of ['yes', 'Yes.', 'OK, install it', 'yes please', 'y', 'Approve!']) {
      expect(assistant.isApproval(yes), yes).toBe(true);
    }
    for (const no of ['no', 'yes, but not now', 'maybe', 'install? no', '', 'sure not', undefined, 1]) {
      expect(assistant.isApproval(no), String(no)).toBe(false);
    }
  });
});

describe('installing with approval', () => {
  it('asks only the operator, about a catalogue entry not yet installed', async () => {
    const { question } = await assistant.approvalQuestion(db.pool, { userId: operator, expertId: ' Travel-Planner ' });
    expect(question).toMatch(/^Install the expert "Travel Planner" \(travel-planner\) from the catalogue\?/);
    expect(question).toContain('Answer yes or no.');
    await expectFieldError(() => assistant.approvalQuestion(db.pool, { userId: stranger, expertId: EXPERT }), 'userId');
    await expectFieldError(
      () => assistant.approvalQuestion(db.pool, { userId: operator, expertId: 'no-such-expert' }),
      'expertId',
      'notFound',
    );
    await expectFieldError(
      () => assistant.approvalQuestion(db.pool, { userId: operator, expertId: 'planner' }),
      'expertId',
    );
    await expectFieldError(() => assistant.approvalQuestion(db.pool, { userId: operator, expertId: '' }), 'expertId');
  });

  it('installs nothing on a no, on no answer, or on the approval of another expert', async () => {
    const no = await answeredApproval(EXPERT, 'No, not now');
    expect(
      await assistant.installApprovedExpert(db.pool, api, {
        expertId: EXPERT,
        questionId: no,
        answer: 'No, not now',
        status: 'answered',
      }),
    ).toMatchObject({
      installed: false,
      result: expect.stringContaining('did not approve'),
    });
    expect(
      await assistant.installApprovedExpert(db.pool, api, {
        expertId: EXPERT,
        questionId: no,
        answer: '',
        status: 'expired',
      }),
    ).toMatchObject({ installed: false, result: expect.stringContaining('did not answer in time') });
    const other = await answeredApproval('fitness-coach', 'yes');
    await expectFieldError(
      () =>
        assistant.installApprovedExpert(db.pool, api, {
          expertId: EXPERT,
          questionId: other,
          answer: 'yes',
          status: 'answered',
        }),
      'questionId',
    );
    // The same question asked to someone else than the operator does not count either.
    const strangers = await answeredApproval(EXPERT, 'yes', stranger);
    await expectFieldError(
      () => assistant.installApprovedExpert(db.pool, api, { expertId: EXPERT, questionId: strangers, answer: 'yes' }),
      'questionId',
    );
    const unanswered = await assistant.askUser(db.pool, operator, {
      kind: 'approval',
      question: (await assistant.approvalQuestion(db.pool, { userId: operator, expertId: EXPERT })).question,
    });
    await expectFieldError(
      () =>
        assistant.installApprovedExpert(db.pool, api, { expertId: EXPERT, questionId: unanswered.id, answer: 'yes' }),
      'questionId',
    );
    expect(n8n.workflows.size).toBe(1);
    expect(n8n.calls.filter((call) => call === 'POST /workflows')).toEqual([]);
    expect((await db.pool.query(`SELECT 1 FROM assistant.experts WHERE id = $1`, [EXPERT])).rowCount).toBe(0);
  });

  it('on a yes creates, tags and publishes the workflow and registers it, once', async () => {
    const questionId = await answeredApproval(EXPERT, 'yes please');
    const result = await assistant.installApprovedExpert(db.pool, api, {
      expertId: EXPERT,
      questionId,
      answer: 'yes please',
      status: 'answered',
    });
    expect(result).toMatchObject({ expertId: EXPERT, installed: true });
    const workflow = n8n.workflows.get(result.workflowId!)!;
    expect(workflow).toMatchObject({ active: true, tags: [{ id: 'tagAssistant0001' }, { id: 'tagExpert0000001' }] });
    expect(workflow.name).toBe('Assistant expert: travel planner (catalogue)');
    expect(await assistant.expertWorkflow(db.pool, EXPERT)).toEqual({
      expertId: EXPERT,
      workflowId: result.workflowId,
    });
    expect(await assistant.expertSettings(db.pool, EXPERT)).toMatchObject({ ownModel: false });
    expect(
      await assistant.installApprovedExpert(db.pool, api, { expertId: EXPERT, questionId, answer: 'yes' }),
    ).toMatchObject({
      installed: false,
      result: expect.stringContaining('already installed'),
    });
    expect(n8n.workflows.size).toBe(2);
    const listing = await assistant.listExperts(db.pool);
    expect(listing.installed.map((expert) => expert.id)).toEqual(['analyst', 'planner', 'researcher', EXPERT]);
    expect(listing.available.map((expert) => expert.id)).not.toContain(EXPERT);
    expect(listing.available).toHaveLength(assistant.loadCatalogue().length - 1);
  });

  it('leaves nothing behind when n8n refuses to publish', async () => {
    const questionId = await answeredApproval(EXPERT, 'yes');
    n8n.failNextPublish(400);
    await expect(
      assistant.installApprovedExpert(db.pool, api, { expertId: EXPERT, questionId, answer: 'yes' }),
    ).rejects.toThrow(/POST \/api\/v1\/workflows\/.+\/publish: n8n answered 400/);
    expect(n8n.workflows.size).toBe(1);
    expect((await db.pool.query(`SELECT 1 FROM assistant.experts WHERE id = $1`, [EXPERT])).rowCount).toBe(0);
  });

  it('says when the API key is wrong', async () => {
    const wrong = assistant.publicWorkflowApi(n8n.baseUrl, 'wrong-key');
    await expect(assistant.installExpertByOperator(db.pool, wrong, EXPERT)).rejects.toThrow(
      /401 \(the API key is wrong or revoked\)/,
    );
    expect(() => assistant.publicWorkflowApi('not a url', API_KEY)).toThrow(/is not a URL/);
  });
});

describe('removing and running', () => {
  it("removes an installed expert with its workflow, at the operator's word only", async () => {
    const { workflowId } = await assistant.installExpertByOperator(db.pool, api, EXPERT);
    await expectFieldError(
      () => assistant.removeExpert(db.pool, api, { expertId: EXPERT, userId: stranger }),
      'userId',
    );
    await expectFieldError(
      () => assistant.removeExpert(db.pool, api, { expertId: 'researcher', userId: operator }),
      'expertId',
    );
    expect(await assistant.removeExpert(db.pool, api, { expertId: EXPERT, userId: operator })).toMatchObject({
      removed: true,
    });
    expect(n8n.workflows.has(workflowId!)).toBe(false);
    await expectFieldError(() => assistant.expertWorkflow(db.pool, EXPERT), 'expertId', 'notFound');
    await expectFieldError(
      () => assistant.removeExpert(db.pool, api, { expertId: EXPERT, userId: operator }),
      'expertId',
      'notFound',
    );
  });

  it('finds the workflow of any installed expert, shipped ones included', async () => {
    expect(await assistant.expertWorkflow(db.pool, 'Researcher')).toEqual({
      expertId: 'researcher',
      workflowId: 'asstExpertResrch',
    });
    await expectFieldError(() => assistant.expertWorkflow(db.pool, 'fitness-coach'), 'expertId', 'notFound');
    await expectFieldError(() => assistant.expertWorkflow(db.pool, ''), 'expertId');
  });
});
