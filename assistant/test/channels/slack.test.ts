// Slack against its loopback fake (test/fakes/slack-api.ts): Socket Mode (each envelope acknowledged at once, a
// retry of an event already handed on dropped, a reconnect after Slack's disconnect, a refused token stopping with
// its reason), a DM in and the reply out by chat.postMessage in its thread, an approval's buttons clicked and the
// click coming back as the answer to its question, chat.postMessage's refusals as delivery outcomes, the Events
// API's signature and five-minute window, and the owner-only gate refusing a stranger.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSlackFake, slackSignature, type SlackFake } from '../../../test/fakes/slack-api';
import { listenOnLoopback, readBody, type RunningServer } from '../../../test/fakes/http-util';
import {
  parseSlackPayload,
  renderSlack,
  sendSlackParts,
  slackChannel,
  slackSignatureProblem,
  SLACK_PART_LIMIT,
  visibleTextOfMrkdwn,
} from '../../src/channels/slack';
import { SlackSocketMode } from '../../src/channels/slack-socket';
import { admitSlackSender, SLACK_REFUSAL } from '../../src/channels/slack-admit';
import { findIdentityUser, resolveIdentity } from '../../src/identities/identities';
import { OPERATOR_API_USER_ID } from '../../src/pending/approvals';
import { useAssistantDatabase } from '../database';

const BOT = 'xoxb-1111-2222-slacktest';
const APP = 'xapp-1-A0FAKEAPP1-3333-slacktest';
const SECRET = '8f742231b10e8888abcd99yyyzzz85a5';
const OWNER = 'U0OWNER001';

const db = useAssistantDatabase();
let slack: SlackFake;
const clients: SlackSocketMode[] = [];

beforeAll(async () => {
  slack = await startSlackFake({ botToken: BOT, appToken: APP, signingSecret: SECRET, ackTimeoutMs: 300 });
});
afterEach(async () => {
  for (const client of clients.splice(0)) await client.stop();
});
afterAll(async () => {
  await slack?.close();
});

function socketClient(appToken = APP) {
  const payloads: Array<{ payload: Record<string, unknown>; type: string; retryAttempt: number }> = [];
  const logs: string[] = [];
  const stopped: string[] = [];
  const client = new SlackSocketMode({
    apiUrl: slack.apiUrl,
    appToken,
    onPayload: (payload, meta) => payloads.push({ payload, type: meta.type, retryAttempt: meta.retryAttempt }),
    onStopped: (reason) => stopped.push(reason),
    log: (line) => logs.push(line),
    maxBackoffMs: 200,
  });
  clients.push(client);
  return { client, payloads, logs, stopped };
}

const until = async (check: () => boolean, what: string, ms = 5000) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

describe('Socket Mode', () => {
  it('acknowledges each envelope at once and hands the DM on as a message', async () => {
    const { client, payloads } = socketClient();
    await client.start();
    const envelope = await slack.sendMessage(OWNER, 'hello *there* <@U0OTHER01>');
    expect(envelope).toMatchObject({ acked: true, retry_attempt: 0, type: 'events_api' });
    expect(slack.envelopes().filter((e) => e.payload === envelope.payload)).toHaveLength(1);
    expect(payloads).toHaveLength(1);
    const parsed = parseSlackPayload(payloads[0].payload);
    if (parsed.kind !== 'message') throw new Error(JSON.stringify(parsed));
    expect(parsed.message).toMatchObject({
      channel: 'slack',
      externalId: OWNER,
      text: 'hello *there* <@U0OTHER01>',
      sessionId: `slack:D${OWNER.slice(1)}`,
    });
  });

  it('drops a retry of an event it already handed on (the same event_id in a new envelope)', async () => {
    const { client, payloads, logs } = socketClient();
    await client.start();
    const event = slack.messageEvent(OWNER, 'once only');
    const first = await slack.redeliver(event, 0);
    const retry = await slack.redeliver(event, 1);
    expect(first.envelope_id).not.toBe(retry.envelope_id);
    expect([first.acked, retry.acked]).toEqual([true, true]);
    expect(payloads.filter((p) => p.payload.event_id === event.event_id)).toHaveLength(1);
    expect(logs.join('\n')).toContain(`retry 1 of event:${event.event_id} dropped`);
  });

  it('an envelope left unacknowledged is delivered again with retry_attempt and reason', async () => {
    // No client connected that acknowledges: a raw socket that ignores envelopes.
    const { default: WebSocket } = await import('ws');
    const opened = await fetch(`${slack.apiUrl}/apps.connections.open`, {
      method: 'POST',
      headers: { authorization: `Bearer ${APP}` },
    });
    const { url } = (await opened.json()) as { url: string };
    const raw = new WebSocket(url);
    const seen: Array<{ retry_attempt: number; retry_reason: string; envelope_id: string }> = [];
    raw.on('message', (data) => {
      const message = JSON.parse(String(data));
      if (message.envelope_id) seen.push(message);
    });
    await new Promise((resolve) => raw.once('open', resolve));
    await until(() => slack.connections() >= 1, 'the raw connection');
    const last = await slack.sendMessage(OWNER, 'nobody acks');
    raw.close();
    expect(last.acked).toBe(false);
    expect(seen.map((e) => e.retry_attempt)).toEqual([0, 1, 2, 3]);
    expect(seen.slice(1).every((e) => e.retry_reason === 'timeout')).toBe(true);
    expect(new Set(seen.map((e) => e.envelope_id)).size).toBe(4);
  });

  it("reconnects after Slack's refresh_requested and keeps receiving", async () => {
    const { client, payloads, logs } = socketClient();
    await client.start();
    slack.disconnect('refresh_requested');
    await until(() => logs.join('\n').includes('refresh_requested'), 'the disconnect message');
    await until(() => client.connected && slack.connections() === 1, 'the new connection');
    await slack.sendMessage(OWNER, 'after the refresh');
    expect(payloads.map((p) => p.payload.event && (p.payload.event as { text: string }).text)).toContain(
      'after the refresh',
    );
  });

  it('stops with the reason when Socket Mode is switched off (link_disabled)', async () => {
    const { client, stopped } = socketClient();
    await client.start();
    slack.disconnect('link_disabled');
    await until(() => stopped.length === 1, 'the stop');
    expect(stopped[0]).toContain('link_disabled');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(client.connected).toBe(false);
  });

  it('refuses to start with a bot token, or a wrong token, naming the app-level token', async () => {
    await expect(socketClient(BOT).client.start()).rejects.toThrow(/not_allowed_token_type.*App-Level Token/);
    await expect(socketClient('xapp-wrong').client.start()).rejects.toThrow(/invalid_auth/);
  });
});

describe('a DM in, the reply out', () => {
  it('replies in the thread of a threaded message, and a top-level DM at the top level', async () => {
    const bot = { apiUrl: slack.apiUrl, botToken: BOT };
    const threaded = parseSlackPayload(slack.messageEvent(OWNER, 'in a thread', { threadTs: '1700000001.000100' }));
    if (threaded.kind !== 'message') throw new Error('not a message');
    expect(threaded.message.sessionId).toBe(`slack:D${OWNER.slice(1)}:1700000001.000100`);
    expect(threaded.message.replyTo).toBe('1700000001.000100');
    const target = (threaded.message.metadata.slack as { reply_target: string }).reply_target;
    const outcome = await sendSlackParts(bot, target, renderSlack({ text: 'Thread **reply** & <b>' }));
    expect(outcome.status).toBe('delivered');
    const [posted] = slack.posted(OWNER).slice(-1);
    expect(posted).toMatchObject({ thread_ts: '1700000001.000100', text: 'Thread *reply* &amp; &lt;b&gt;' });
    const top = parseSlackPayload(slack.messageEvent(OWNER, 'top'));
    if (top.kind !== 'message') throw new Error('not a message');
    await sendSlackParts(
      bot,
      (top.message.metadata.slack as { reply_target: string }).reply_target,
      renderSlack({ text: 'top' }),
    );
    expect(slack.posted(OWNER).at(-1)?.thread_ts).toBeUndefined();
  });

  it("ignores the bot's own messages, edits and channel chatter; refuses a message without a user", () => {
    const event = slack.messageEvent(OWNER, 'x');
    const withEvent = (changes: Record<string, unknown>) => ({
      ...event,
      event: { ...(event.event as object), ...changes },
    });
    expect(parseSlackPayload(withEvent({ bot_id: 'B1' })).kind).toBe('ignored');
    expect(parseSlackPayload(withEvent({ subtype: 'message_changed' })).kind).toBe('ignored');
    expect(parseSlackPayload(withEvent({ channel_type: 'channel', channel: 'C0GENERAL1' })).kind).toBe('ignored');
    expect(parseSlackPayload(withEvent({ user: undefined }))).toMatchObject({
      kind: 'refused',
      refusal: { field: 'event.user' },
    });
    expect(parseSlackPayload({ type: 'nonsense' })).toMatchObject({ kind: 'refused', refusal: { field: 'type' } });
  });
});

describe('an approval answered by button', () => {
  it('posts Yes/No buttons; a click comes back over the socket as the answer to that question', async () => {
    const { client, payloads } = socketClient();
    await client.start();
    const question = { id: '4242', kind: 'approval' as const, question: 'Install the expert "planner"?' };
    const parts = renderSlack({ text: 'Install the expert "planner"?', question });
    const outcome = await sendSlackParts({ apiUrl: slack.apiUrl, botToken: BOT }, OWNER, parts, question.id);
    expect(outcome.status).toBe('delivered');
    const asked = slack.posted(OWNER).at(-1)!;
    expect(outcome).toMatchObject({ channelMessageId: asked.ts });
    const clicked = await slack.clickButton(OWNER, asked, 'answer_1');
    expect(clicked).toMatchObject({ type: 'interactive', acked: true });
    const parsed = parseSlackPayload(payloads.at(-1)!.payload);
    if (parsed.kind !== 'message') throw new Error(JSON.stringify(parsed));
    expect(parsed.message).toMatchObject({ externalId: OWNER, text: 'no', replyTo: '4242' });
  });

  it('a button value that is not ours is refused naming it', () => {
    const payload = {
      type: 'block_actions',
      user: { id: OWNER },
      container: { channel_id: 'D0OWNER001', message_ts: '1.1' },
      actions: [{ action_id: 'x', value: 'rm -rf' }],
    };
    expect(parseSlackPayload(payload)).toMatchObject({ kind: 'refused', refusal: { field: 'actions[0].value' } });
  });
});

describe("chat.postMessage's answers as delivery outcomes", () => {
  const bot = () => ({ apiUrl: slack.apiUrl, botToken: BOT });

  it('ratelimited (429, Retry-After) is retried later; a wrong token, an unknown channel are failed', async () => {
    slack.rateLimit(1, 30);
    const limited = await sendSlackParts(bot(), OWNER, renderSlack({ text: 'hi' }));
    expect(limited).toMatchObject({ status: 'retry' });
    expect((limited as { error: string }).error).toMatch(/ratelimited \(retry after 30 s\)/);
    const wrong = await sendSlackParts({ ...bot(), botToken: 'xoxb-wrong' }, OWNER, renderSlack({ text: 'hi' }));
    expect(wrong).toMatchObject({ status: 'failed', error: expect.stringContaining('invalid_auth') });
    expect(JSON.stringify(wrong)).not.toContain('xoxb-wrong');
    const missing = await sendSlackParts(bot(), 'C0NOWHERE1/1.2', renderSlack({ text: 'hi' }));
    expect(missing).toMatchObject({ status: 'failed', error: expect.stringContaining('channel_not_found') });
    const noToken = await sendSlackParts(null, OWNER, renderSlack({ text: 'hi' }));
    expect(noToken).toMatchObject({ status: 'retry', error: expect.stringContaining('Slack App credential') });
  });

  it('every part of a long reply fits a section block; text over 40,000 would be msg_too_long', async () => {
    const long = `${'&<> '.repeat(2_000)}${'word '.repeat(9_000)}`;
    const parts = renderSlack({ text: long });
    expect(parts.every((part) => part.text.length <= SLACK_PART_LIMIT)).toBe(true);
    expect(
      parts
        .map((part) => visibleTextOfMrkdwn(part.text))
        .join('')
        .replace(/\s+/g, ''),
    ).toBe(long.replace(/\s+/g, ''));
    const before = slack.posted(OWNER).length;
    const outcome = await sendSlackParts(bot(), OWNER, parts);
    expect(outcome).toMatchObject({ status: 'delivered' });
    expect(slack.posted(OWNER).length - before).toBe(parts.length);
    const tooLong = await sendSlackParts(bot(), OWNER, [{ text: 'x'.repeat(40_001), format: 'slack-mrkdwn' }]);
    expect(tooLong).toMatchObject({ status: 'failed', error: expect.stringContaining('msg_too_long') });
  });
});

describe('the Events API signature', () => {
  let receiver: RunningServer;
  const seen: Array<{ problem: string | null; retry: string | undefined }> = [];

  beforeAll(async () => {
    receiver = await listenOnLoopback(async (req, res) => {
      const body = await readBody(req);
      const problem = slackSignatureProblem(
        SECRET,
        {
          timestamp: req.headers['x-slack-request-timestamp'] as string,
          signature: req.headers['x-slack-signature'] as string,
        },
        body,
        new Date(),
      );
      seen.push({ problem, retry: req.headers['x-slack-retry-num'] as string | undefined });
      res.writeHead(problem ? 401 : 200).end();
    });
  });
  afterAll(async () => receiver?.close());

  it('takes a signed request; refuses a forged signature and a replayed (old) timestamp', async () => {
    const payload = slack.messageEvent(OWNER, 'signed');
    expect((await slack.postEvent(receiver.url, payload)).status).toBe(200);
    expect((await slack.postEvent(receiver.url, payload, { retryNum: 1 })).status).toBe(200);
    expect((await slack.postEvent(receiver.url, payload, { forge: 'signature' })).status).toBe(401);
    expect((await slack.postEvent(receiver.url, payload, { forge: 'old-timestamp' })).status).toBe(401);
    expect(seen.map((s) => s.problem)).toEqual([
      null,
      null,
      'X-Slack-Signature does not match',
      'X-Slack-Request-Timestamp is more than five minutes away (a replay?)',
    ]);
    expect(seen[1].retry).toBe('1');
  });

  it("matches Slack's documented example signature", () => {
    // docs.slack.dev "Verifying requests from Slack": the example secret, timestamp and body give this signature.
    const body =
      'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c';
    const expected = 'v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503';
    expect(slackSignature('8f742231b10e8888abcd99yyyzzz85a5', '1531420618', body)).toBe(expected);
    const at = new Date(1531420618 * 1000 + 10_000);
    expect(
      slackSignatureProblem(
        '8f742231b10e8888abcd99yyyzzz85a5',
        { timestamp: '1531420618', signature: expected },
        body,
        at,
      ),
    ).toBeNull();
  });
});

describe('who may talk', () => {
  it("the owner's Slack id is the owner's user; a stranger is refused and nothing of theirs is stored", async () => {
    const now = new Date();
    const operator = await resolveIdentity(db.pool, 'api', OPERATOR_API_USER_ID);
    const owner = await admitSlackSender(db.pool, { ownerSlackUserId: OWNER, externalId: OWNER, text: 'hi', now });
    expect(owner).toEqual({ kind: 'owner', userId: operator.userId });
    const again = await admitSlackSender(db.pool, { ownerSlackUserId: OWNER, externalId: OWNER, text: 'hi', now });
    expect(again).toEqual(owner);
    const strangerIn = { ownerSlackUserId: OWNER, externalId: 'U0STRANGER', text: 'let me in', now };
    expect(await admitSlackSender(db.pool, strangerIn)).toEqual({ kind: 'refused', reply: SLACK_REFUSAL });
    expect(await findIdentityUser(db.pool, 'slack', 'U0STRANGER')).toBeNull();
    // The owner not on Slack: nobody's id is the owner's, so this one is a stranger too.
    const noOwner = await admitSlackSender(db.pool, {
      ownerSlackUserId: '',
      externalId: 'U0OTHER002',
      text: 'hi',
      now,
    });
    expect(noOwner).toMatchObject({ kind: 'refused' });
  });

  it('with the pairing policy a stranger is asked for a code; a code the owner issued pairs them', async () => {
    const { setDmPolicy, issuePairingCode } = await import('../../src/people');
    const now = new Date();
    const ownerIn = { ownerSlackUserId: OWNER, externalId: OWNER, text: 'hi', now };
    const owner = (await admitSlackSender(db.pool, ownerIn)) as { userId: string };
    await setDmPolicy(db.pool, { channel: 'slack', policy: 'pairing' });
    try {
      const strangerIn = { ownerSlackUserId: OWNER, externalId: 'U0PAIRME01', text: 'hi', now };
      expect(await admitSlackSender(db.pool, strangerIn)).toMatchObject({ kind: 'pairing-reply' });
      expect(await findIdentityUser(db.pool, 'slack', 'U0PAIRME01')).toBeNull();
      const { code } = await issuePairingCode(db.pool, { callerUserId: owner.userId, personName: 'Ana', now });
      const paired = await admitSlackSender(db.pool, { ...strangerIn, text: code });
      expect(paired).toMatchObject({ kind: 'pairing-reply', pairedUserId: expect.any(String) });
      const after = await admitSlackSender(db.pool, strangerIn);
      expect(after).toEqual({ kind: 'person', userId: await findIdentityUser(db.pool, 'slack', 'U0PAIRME01') });
      expect((after as { userId: string }).userId).not.toBe(owner.userId);
    } finally {
      await setDmPolicy(db.pool, { channel: 'slack', policy: 'owner' });
    }
  });

  it('a reminder for the owner goes to their Slack DM when Slack is their channel', async () => {
    const { userId } = await resolveIdentity(db.pool, 'slack', 'U0REMIND01');
    const adapter = slackChannel({ apiUrl: slack.apiUrl, botToken: BOT });
    const { queueMessage, claimDueMessages } = await import('../../src/delivery/outbox');
    const { deliverOnChannel } = await import('../../src/channels/delivery');
    const { message } = await queueMessage(db.pool, userId, { kind: 'reminder', text: 'Reminder: water the plants' });
    expect(message).toMatchObject({ channel: 'slack', target: 'U0REMIND01', status: 'pending' });
    const now = new Date(Date.now() + 1000);
    const claimed = (await claimDueMessages(db.pool, now)).find((row) => row.id === message.id)!;
    const receipt = await deliverOnChannel(db.pool, adapter, claimed, { now, maxAttempts: 3, retrySeconds: 30 });
    expect(receipt).toMatchObject({ status: 'delivered', channelMessageId: slack.posted('U0REMIND01').at(-1)?.ts });
    expect(slack.posted('U0REMIND01').map((m) => m.text)).toEqual(['Reminder: water the plants']);
  });
});

describe("a Slack turn's reply, and the question on the way", () => {
  it('posts the question with buttons, takes the click as its answer, then posts the reply in the thread', async () => {
    const { receiveMessage, finishTurn } = await import('../../src/turns/lifecycle');
    const { askUser } = await import('../../src/pending/pending-questions');
    const { followTurnOnSlack } = await import('../../src/channels/slack-turn');
    const { userId } = await resolveIdentity(db.pool, 'slack', 'U0FOLLOW01');
    const inbound = parseSlackPayload(
      slack.messageEvent('U0FOLLOW01', 'install the planner', { threadTs: '1700000009.000100' }),
    );
    if (inbound.kind !== 'message') throw new Error('not a message');
    const target = (inbound.message.metadata.slack as { reply_target: string }).reply_target;
    const stored = await receiveMessage(db.pool, userId, {
      message: inbound.message.text,
      sessionId: inbound.message.sessionId,
      channel: 'api',
    });
    if (stored.kind !== 'turn') throw new Error('not a turn');
    const bot = { apiUrl: slack.apiUrl, botToken: BOT };
    const followed = followTurnOnSlack(db.pool, bot, {
      userId,
      turnId: stored.turnId,
      target,
      deadline: new Date(Date.now() + 20_000),
      pollMs: 20,
    });
    const asked = await askUser(db.pool, userId, {
      kind: 'approval',
      question: 'Install the expert "planner"?',
      turnId: stored.turnId,
    });
    await until(() => slack.posted('U0FOLLOW01').some((m) => m.blocks !== undefined), 'the question');
    const question = slack.posted('U0FOLLOW01').find((m) => m.blocks !== undefined)!;
    expect(question).toMatchObject({ thread_ts: '1700000009.000100', text: 'Install the expert "planner"?' });
    // The click, as the trigger hands it on, answers that question when stored.
    const { client, payloads } = socketClient();
    await client.start();
    await slack.clickButton('U0FOLLOW01', question, 'answer_0');
    const click = parseSlackPayload(payloads.at(-1)!.payload);
    if (click.kind !== 'message') throw new Error('not a message');
    expect(click.message).toMatchObject({ text: 'yes', replyTo: asked.id });
    const answered = await receiveMessage(db.pool, userId, {
      message: click.message.text,
      sessionId: click.message.sessionId,
      channel: 'api',
      replyTo: click.message.replyTo,
    });
    expect(answered.kind).toBe('answer');
    await finishTurn(db.pool, userId, stored.turnId, 'Installed **planner** <!channel>');
    expect(await followed).toMatchObject({ status: 'answered', asked: [asked.id] });
    const reply = slack.posted('U0FOLLOW01').at(-1)!;
    expect(reply).toMatchObject({ thread_ts: '1700000009.000100', text: 'Installed *planner* &lt;!channel&gt;' });
  });

  it('past the deadline the user is told the answer will come, and the turn is left to the outbox', async () => {
    const { receiveMessage, getTurn } = await import('../../src/turns/lifecycle');
    const { followTurnOnSlack, SLACK_STILL_WORKING } = await import('../../src/channels/slack-turn');
    const { userId } = await resolveIdentity(db.pool, 'slack', 'U0SLOW0001');
    const stored = await receiveMessage(db.pool, userId, {
      message: 'slow one',
      sessionId: 'slack:D0SLOW0001',
      channel: 'api',
    });
    if (stored.kind !== 'turn') throw new Error('not a turn');
    const followed = await followTurnOnSlack(
      db.pool,
      { apiUrl: slack.apiUrl, botToken: BOT },
      {
        userId,
        turnId: stored.turnId,
        target: 'D0SLOW0001',
        deadline: new Date(Date.now() + 100),
        pollMs: 20,
      },
    );
    expect(followed.status).toBe('left');
    expect(slack.posted('U0SLOW0001').at(-1)?.text).toBe(SLACK_STILL_WORKING);
    const state = await db.pool.query('SELECT caller_left_at FROM assistant.turns WHERE id = $1', [stored.turnId]);
    expect(state.rows[0].caller_left_at).not.toBeNull();
    expect((await getTurn(db.pool, userId, stored.turnId)).status).toBe('pending');
  });
});
