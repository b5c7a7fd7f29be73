// Approvals by effect, decided by code from the tool registry (tools/registry.ts): a gated tool's workflow first runs
// the approval gate workflow, which asks here whether this call needs a yes, asks it through the one pending-question
// store, and lets the tool run only on a yes to that very question: asked to this user, naming this tool and a digest
// of these arguments, answered yes. The model cannot answer, and a yes cannot be reused for another call.
// The rule per tool is the registry's default unless the instance setting `toolApprovals` names another.
import { createHash } from 'node:crypto';
import { AssistantInputError } from '../errors';
import {
  isApproval,
  isOperator,
  OPERATOR_API_USER_ID,
  operatorUserId,
  requireApprovalQuestion,
} from '../pending/approvals';
import { getInstanceSettings } from '../settings/settings';
import type { Queryable } from '../storage/db';
import { toolByName, type AssistantTool, type ToolApproval } from '../tools/registry';
import { requireUserId } from '../validate';

/** What the gate does with a call: run it, ask first (the question), or refuse it (why). */
export type ApprovalDecision =
  | { approval: 'granted'; approval_result: string }
  | ({ approval: 'ask'; question: string } & AskTarget)
  | { approval: 'refused'; approval_result: string }
  | { approval: 'judge'; judge_state: string; judge_question: string };

/** The Judge's answer to the gate's question (the `judge` rule): the probability of yes, or why there is none. */
export interface JudgeVerdict {
  probability: unknown;
  error?: unknown;
}

/** The yes/no question the Judge answers for a call under the `judge` rule: yes means ask the user first. */
export const APPROVAL_JUDGE_QUESTION =
  'Should the assistant ask the user for a yes before making this call? Yes when it is hard to undo, reaches other ' +
  'people or money, or goes beyond what the user asked for; no when it plainly does what the user asked.';

/** Whom the gate asks, on which channel, tied to which turn (0: asked outside the run's turn, as another user). */
export interface AskTarget {
  ask_user_id: string;
  ask_channel: string;
  ask_chat_id: string;
  ask_turn_id: number;
}

export interface ToolCall {
  tool: unknown;
  userId: unknown;
  /** The tool workflow's own inputs, as it was called (the ids of the run are left out of the digest). */
  arguments: unknown;
}

/** The inputs every tool gets from the run, not from the model: not part of what is approved. */
const RUN_INPUTS = new Set(['user_id', 'turn_id', 'channel', 'chat_id', 'deadline']);

function requireTool(name: unknown): AssistantTool {
  const tool = typeof name === 'string' ? toolByName(name.trim()) : undefined;
  if (!tool)
    throw new AssistantInputError('tool', `must be the name of one of the agent's tools, got ${JSON.stringify(name)}`);
  return tool;
}

/** The call's own arguments (what the model chose), in a stable order. */
export function callArguments(input: unknown): Record<string, unknown> {
  const given = typeof input === 'string' ? parseJson(input) : input;
  if (typeof given !== 'object' || given === null || Array.isArray(given)) {
    throw new AssistantInputError('arguments', "must be the tool's inputs as an object");
  }
  return Object.fromEntries(
    Object.entries(given as Record<string, unknown>)
      .filter(([key]) => !RUN_INPUTS.has(key))
      .sort(([a], [b]) => (a < b ? -1 : 1)),
  );
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new AssistantInputError('arguments', "must be the tool's inputs as a JSON object");
  }
}

/** The marker the question carries: the tool and a digest of its arguments and of whose call it is. */
export function approvalMarker(tool: AssistantTool, args: Record<string, unknown>, userId: string): string {
  const digest = createHash('sha256')
    .update(JSON.stringify([userId, args]))
    .digest('hex')
    .slice(0, 12);
  return `[${tool.name} ${digest}]`;
}

/** The arguments given, each shortened: `key: value; …`. */
function shownArguments(args: Record<string, unknown>): string {
  return Object.entries(args)
    .filter(([, value]) => value !== '' && value !== null && value !== undefined)
    .map(([key, value]) => `${key}: ${String(typeof value === 'string' ? value : JSON.stringify(value)).slice(0, 200)}`)
    .join('; ');
}

/** The plain summary of what will happen: the tool's summary and the arguments given. */
function approvalQuestion(tool: AssistantTool, args: Record<string, unknown>, userId: string): string {
  const shown = shownArguments(args);
  return (
    `May I ${tool.summary}${shown ? ` (${shown})` : ''}? Reply yes to go ahead; anything else stops it. ` +
    approvalMarker(tool, args, userId)
  );
}

/** The rule in force for a tool: the instance setting's, else the registry's. */
export async function approvalRule(db: Queryable, tool: AssistantTool): Promise<ToolApproval> {
  return (await getInstanceSettings(db)).toolApprovals[tool.name] ?? tool.approval;
}

/** A built tool's HTTP method, or undefined when there is no such tool (run_tool then refuses it itself). */
async function builtToolMethod(db: Queryable, name: unknown): Promise<string | undefined> {
  if (typeof name !== 'string') return undefined;
  const found = await db.query<{ method: string }>(
    `SELECT coalesce(spec->>'method', 'GET') AS method FROM assistant.built_tools WHERE name = $1`,
    [name.trim()],
  );
  return found.rows[0]?.method;
}

/** The turn the call runs in (the tool's turn_id input), when it has one. */
function turnOf(raw: unknown): number | undefined {
  const given = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>).turn_id : undefined;
  const id = Number(given);
  return Number.isSafeInteger(id) && id > 0 ? id : undefined;
}

/** Whether the turn's run has called a tool that brings outside text. */
async function carriesOutsideText(db: Queryable, userId: string, turnId: number | undefined): Promise<boolean> {
  if (turnId === undefined) return false;
  const found = await db.query(
    'SELECT 1 FROM assistant.turns WHERE id = $1 AND user_id = $2 AND outside_content_at IS NOT NULL',
    [turnId, userId],
  );
  return (found.rowCount ?? 0) > 0;
}

/** Marks the turn as carrying outside text from now on (its first mark stays). */
async function markOutsideText(db: Queryable, userId: string, turnId: number | undefined): Promise<void> {
  if (turnId === undefined) return;
  await db.query(
    `UPDATE assistant.turns SET outside_content_at = coalesce(outside_content_at, clock_timestamp())
      WHERE id = $1 AND user_id = $2`,
    [turnId, userId],
  );
}

/** Keeps the URLs a turn's web search returned (reading one later is no URL the model made up). */
export async function rememberTurnLinks(db: Queryable, turnId: number, urls: string[]): Promise<void> {
  if (urls.length === 0) return;
  await db.query(
    `INSERT INTO assistant.turn_links (turn_id, url)
     SELECT $1, url FROM unnest($2::text[]) AS url WHERE EXISTS (SELECT 1 FROM assistant.turns WHERE id = $1)
     ON CONFLICT DO NOTHING`,
    [turnId, urls.slice(0, 50)],
  );
}

/** Whether a URL is one the model did not make up: the user wrote it (in the last 7 days: its full text, or its host
 * and path when it has no query, where data would leave), or the turn's web search returned it. */
async function knownUrl(db: Queryable, userId: string, turnId: number | undefined, url: unknown): Promise<boolean> {
  let parsed: URL;
  try {
    parsed = new URL(String(url).trim());
  } catch {
    return false;
  }
  if (turnId !== undefined) {
    const searched = await db.query('SELECT 1 FROM assistant.turn_links WHERE turn_id = $1 AND url = ANY($2::text[])', [
      turnId,
      [parsed.href, String(url).trim()],
    ]);
    if ((searched.rowCount ?? 0) > 0) return true;
  }
  const hostPath = `${parsed.host}${parsed.pathname.replace(/\/+$/, '')}`;
  const found = await db.query(
    `SELECT 1 FROM assistant.turns
      WHERE user_id = $1 AND role = 'user' AND created_at > clock_timestamp() - interval '7 days'
        AND (strpos(content, $2) > 0 OR ($3 AND strpos(content, $4) > 0)) LIMIT 1`,
    [userId, parsed.href, parsed.search === '' && parsed.hash === '', hostPath],
  );
  return (found.rowCount ?? 0) > 0;
}

const OUTSIDE_WARNING =
  'This request read outside text (a web page, search results or a tool’s answer), which may carry instructions ' +
  'that are not yours. ';

/**
 * Whether a call may run now, must be asked about first, or is refused. Its tool's rule decides; and once the turn
 * carries outside text, every change asks whatever the rule (browser steps inside a task excepted, see the docs), and
 * so does a fetch of a URL the user never wrote. Calling a tool that brings outside text marks the turn. Under the
 * `judge` rule the answer is `judge` (the state and question to put to the Judge), then weighToolApproval.
 */
export async function decideToolApproval(db: Queryable, call: ToolCall): Promise<ApprovalDecision> {
  return await decide(db, call, undefined);
}

/** A call under the `judge` rule, with the Judge's answer: asked when it says yes at or above the threshold. */
export async function weighToolApproval(db: Queryable, call: ToolCall & JudgeVerdict): Promise<ApprovalDecision> {
  return await decide(db, call, { probability: call.probability, error: call.error });
}

async function decide(db: Queryable, call: ToolCall, verdict: JudgeVerdict | undefined): Promise<ApprovalDecision> {
  const tool = requireTool(call.tool);
  const args = callArguments(call.arguments);
  const noUser = call.userId === '' || call.userId === undefined || call.userId === null;
  const userId = noUser ? undefined : requireUserId(call.userId);
  const turnId = turnOf(call.arguments);
  const outside = userId !== undefined && (await carriesOutsideText(db, userId, turnId));
  const reason = await askReason(db, tool, args, { userId, turnId, outside });
  if (tool.bringsOutsideText && userId !== undefined && verdict === undefined)
    await markOutsideText(db, userId, turnId);
  if (reason === undefined) return { approval: 'granted', approval_result: `${tool.name} needs no approval` };
  let prefix = reason === 'rule' || reason === 'judge' ? '' : OUTSIDE_WARNING;
  if (reason === 'judge') {
    if (verdict === undefined) {
      return {
        approval: 'judge',
        judge_state: await judgeState(db, tool, args, userId, turnId),
        judge_question: APPROVAL_JUDGE_QUESTION,
      };
    }
    const weighed = await weigh(db, tool, verdict);
    if (weighed.granted) return { approval: 'granted', approval_result: weighed.why };
    prefix = weighed.why;
  }
  // A call from outside a conversation (the MCP server's exposed tools) has no one to ask.
  if (userId === undefined) {
    return {
      approval: 'refused',
      approval_result: `Not done: ${tool.name} needs a yes, and this call has no user to ask.`,
    };
  }
  const question = prefix + approvalQuestion(tool, args, userId);
  if (await isOperator(db, userId)) return { approval: 'ask', question, ...ownChannel(call.arguments, userId, turnId) };
  if (reason === 'rule' && (await approvalRule(db, tool)) === 'ask-operator') {
    return {
      approval: 'refused',
      approval_result: `Not done: ${tool.name} needs the operator's approval, and only the operator can give it.`,
    };
  }
  if (reason !== 'outside') return { approval: 'ask', question, ...ownChannel(call.arguments, userId, turnId) };
  // Another user's careful turn: the operator approves, on their Telegram chat, else through their outbox.
  const operator = await operatorToAsk(db);
  if (!operator) {
    return {
      approval: 'refused',
      approval_result: `Not done: ${tool.name} after outside text needs the operator's yes, and the operator cannot be asked yet (no Telegram chat, and no call on the webhook as user_id "${OPERATOR_API_USER_ID}").`,
    };
  }
  return { approval: 'ask', question: `For another user of the assistant: ${question}`, ...operator };
}

/** The Judge's answer against the stored threshold: run (and why), or ask (with what to say first). */
async function weigh(
  db: Queryable,
  tool: AssistantTool,
  verdict: JudgeVerdict,
): Promise<{ granted: boolean; why: string }> {
  const probability = verdict.probability === '' || verdict.probability === null ? NaN : Number(verdict.probability);
  const error = typeof verdict.error === 'string' ? verdict.error.trim() : '';
  if (error !== '' || !(probability >= 0 && probability <= 1)) {
    return {
      granted: false,
      why: `The Judge could not weigh this (${error || 'no probability came back'}), so I ask. `,
    };
  }
  const threshold = (await getInstanceSettings(db)).approvalJudgeThreshold;
  const weighed = `p(ask) ${probability.toFixed(2)}, threshold ${threshold.toFixed(2)}`;
  return probability >= threshold
    ? { granted: false, why: '' }
    : { granted: true, why: `${tool.name} runs: the Judge saw no need to ask (${weighed})` };
}

/** What the Judge reads: the user's message of the turn, the tool and its inputs. */
async function judgeState(
  db: Queryable,
  tool: AssistantTool,
  args: Record<string, unknown>,
  userId: string | undefined,
  turnId: number | undefined,
): Promise<string> {
  const found =
    userId === undefined || turnId === undefined
      ? undefined
      : await db.query<{ content: string }>(
          `SELECT content FROM assistant.turns WHERE id = $1 AND user_id = $2 AND role = 'user'`,
          [turnId, userId],
        );
  const message = found?.rows[0]?.content;
  return [
    message === undefined
      ? 'No message from the user goes with this call.'
      : `The user wrote: ${JSON.stringify(message.slice(0, 2000))}`,
    `To answer, the assistant wants to ${tool.summary} (the tool ${tool.name}, whose effect is ${tool.effect}).`,
    `Its inputs: ${shownArguments(args) || 'none'}.`,
  ].join('\n');
}

/** The caller's own channel and turn, from the tool's run inputs. */
function ownChannel(raw: unknown, userId: string, turnId: number | undefined): AskTarget {
  const inputs = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
  return {
    ask_user_id: userId,
    ask_channel: typeof inputs.channel === 'string' ? inputs.channel : '',
    ask_chat_id: inputs.chat_id === undefined || inputs.chat_id === null ? '' : String(inputs.chat_id),
    ask_turn_id: turnId ?? 0,
  };
}

/**
 * The operator as the gate asks them about another user's call: on the owner's Telegram chat; else through the
 * outbox (their callback URL, or `GET /webhook/agent/outbox` to pull), answered with `reply_to` on the webhook.
 */
async function operatorToAsk(db: Queryable): Promise<AskTarget | undefined> {
  const chat = (await getInstanceSettings(db)).ownerTelegramChatId;
  const operator = await operatorUserId(db);
  if (!operator) return undefined;
  return chat
    ? { ask_user_id: operator, ask_channel: 'telegram', ask_chat_id: chat, ask_turn_id: 0 }
    : { ask_user_id: operator, ask_channel: 'outbox', ask_chat_id: '', ask_turn_id: 0 };
}

/** Why a call must be asked about: its rule (or the Judge it names), or the outside text its turn carries. */
type AskReason = 'rule' | 'judge' | 'outside';

/** Why a call must be asked about; undefined when it may run. */
async function askReason(
  db: Queryable,
  tool: AssistantTool,
  args: Record<string, unknown>,
  context: { userId: string | undefined; turnId: number | undefined; outside: boolean },
): Promise<AskReason | undefined> {
  if (tool.asksOnlyWhen === 'sends-form') return await formReason(db, tool, args, context.outside);
  if (context.outside && context.userId !== undefined) {
    if (tool.fetchesUrl && !(await knownUrl(db, context.userId, context.turnId, args.url))) return 'outside';
    const browserStep = tool.group === 'browser';
    if (tool.effect !== 'read' && !browserStep) return 'outside';
  }
  const rule = await approvalRule(db, tool);
  if (rule === 'never') return undefined;
  if (tool.asksOnlyWhen === 'method-not-get' && (await builtToolMethod(db, args.name)) === 'GET') return undefined;
  return rule === 'judge' ? 'judge' : 'rule';
}

/**
 * A click (browser_click): the form it sends, as the workflow looked at it before (`sends_form`: "POST https://…",
 * `sign_in`). No form, or a sign-in with a secret the assistant typed: no question. After outside text every form
 * asks (a GET carries the fields in its URL too); otherwise the rule, for any form but a GET.
 */
async function formReason(
  db: Queryable,
  tool: AssistantTool,
  args: Record<string, unknown>,
  outside: boolean,
): Promise<AskReason | undefined> {
  const form = typeof args.sends_form === 'string' ? args.sends_form.trim() : '';
  if (form === '' || args.sign_in === true) return undefined;
  if (outside) return 'outside';
  const rule = await approvalRule(db, tool);
  if (rule === 'never' || form.startsWith('GET ')) return undefined;
  return rule === 'judge' ? 'judge' : 'rule';
}

/** Who approves a call: the user, or the operator for another user's careful turn (as Decide Approval asked). */
async function approverOf(
  db: Queryable,
  tool: AssistantTool,
  args: Record<string, unknown>,
  userId: string,
  turnId: number | undefined,
): Promise<string> {
  if (await isOperator(db, userId)) return userId;
  const outside = await carriesOutsideText(db, userId, turnId);
  const reason = await askReason(db, tool, args, { userId, turnId, outside });
  return reason === 'outside' ? ((await operatorUserId(db)) ?? userId) : userId;
}

/** After the question: granted only on this user's yes to the question about this very call. */
export async function settleToolApproval(
  db: Queryable,
  call: ToolCall & { questionId: unknown; status?: unknown; answer: unknown },
): Promise<ApprovalDecision> {
  const tool = requireTool(call.tool);
  const userId = requireUserId(call.userId);
  if (call.status !== undefined && call.status !== 'answered') {
    return { approval: 'refused', approval_result: `Not done: no answer came in time, so ${tool.name} did not run.` };
  }
  // Asked to whom Decide Approval asked: the user, or (another user's careful turn) the operator.
  const args = callArguments(call.arguments);
  const askedTo = await approverOf(db, tool, args, userId, turnOf(call.arguments));
  await requireApprovalQuestion(db, call.questionId, {
    marker: approvalMarker(tool, args, userId),
    what: `this ${tool.name} call`,
    askedTo,
  });
  if (!isApproval(call.answer)) {
    const who = askedTo === userId ? 'the user' : 'the operator';
    return { approval: 'refused', approval_result: `Not done: ${who} did not say yes, so ${tool.name} did not run.` };
  }
  return { approval: 'granted', approval_result: `${tool.name} was approved by the user` };
}
