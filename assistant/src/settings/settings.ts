// Personality and settings: instance defaults (one row, including the bot owner's Telegram chat id) and
// per-user overrides. The language is a Postgres text-search configuration (pg_ts_config), used for stemming; the
// locale (BCP 47) is the one times and dates are read and answered in.
import type { Queryable } from '../storage/db';
import { AssistantInputError } from '../errors';
import { requireLocale } from '../schedule/locale';
import type { QuietHours } from '../schedule/quiet';
import { optionalText, requireTimeZone, requireUserId } from '../validate';
import { quietHoursFromColumns, requireQuietHours } from './preferences';
import { TOOL_APPROVALS, toolByName, type ToolApproval } from '../tools/registry';

export interface AssistantSettings {
  assistantName: string;
  language: string;
  style: string;
  timeZone: string;
  /** BCP 47, e.g. de-AT: the language times, dates and recurrences are read and answered in. */
  locale: string;
}

export interface InstanceSettings extends AssistantSettings {
  ownerTelegramChatId: string | null;
  /** The model name the Chat Model node sends (e.g. gpt-4o-mini, qwen2.5:7b-instruct); default gpt-4o-mini. */
  chatModel: string;
  /** How long a webhook caller waits for the reply before a 504 with the turn id (the run goes on): 1 to 900 s,
   * default 600 (a few calls of a model on a CPU); ASSISTANT_REPLY_DEADLINE_SECONDS. */
  replyDeadlineSeconds: number;
  /** How long one model call may take before the Chat Model node gives up (it retries once): 10 to 600 s, default
   * 300 (a 6–8k-token prompt on a CPU at ~100 tokens/s, and the answer); ASSISTANT_MODEL_TIMEOUT_SECONDS. */
  modelTimeoutSeconds: number;
  /** The longest message accepted, in characters; longer ones are refused before anything runs. Default 200 000. */
  maxMessageChars: number;
  /** How often the heartbeat looks for something to nudge about, in seconds (60–86400); default 300. */
  heartbeatIntervalSeconds: number;
  /** The same nudge is not repeated within this many minutes; default 240. */
  nudgeCooldownMinutes: number;
  /** High-priority tasks due within this many hours are nudged about; default 24. */
  nudgeSoonHours: number;
  /** Urgent tasks without a due date are nudged about this often, in hours (0: never); default 24. */
  urgentNudgeHours: number;
  /** Attempts to deliver one proactive message (Telegram or callback) before it is marked failed; default 8. */
  deliveryMaxAttempts: number;
  /** The first retry's delay in seconds; each further retry waits twice as long (30 s → 8 attempts in ~1 h). */
  deliveryRetrySeconds: number;
  /** The owner gets a report of new failures at most this often, in minutes (0: never); default 60. */
  failureReportMinutes: number;
  /** How long a question the assistant asks (a one-time code, an approval) waits for its answer: 5-600 s, default 300. */
  questionTtlSeconds: number;
  /**
   * The longest one run of the agent may take, 10-1800 s, default 1800 (the agent workflow's own limit): the agent
   * passes the deadline to its tools, which stop at it (a browser task is closed, a question withdrawn).
   */
  runLimitSeconds: number;
  /**
   * Memory capture reads a session once its last turn is this many minutes old: 0-1440, default 5; 0 turns capture
   * off (docs/ASSISTANT.md, Capture).
   */
  captureIdleMinutes: number;
  /**
   * The live memories each user keeps: the nightly consolidation folds the oldest, least important ones into summaries
   * beyond it. 0-1,000,000, default 2,000; 0 turns the nightly consolidation off (docs/ASSISTANT.md, Consolidation).
   */
  memoryBudget: number;
  /** The approval rule per tool where the operator changed the registry's default (docs/ASSISTANT.md's tool table). */
  toolApprovals: Record<string, ToolApproval>;
  /**
   * Under a tool's `judge` rule, the user is asked when the Judge's probability that they would want to be asked is
   * at or above this: 0 to 1, default 0.5.
   */
  approvalJudgeThreshold: number;
  /** The engine web_search asks, or null for the environment's (ASSISTANT_SEARCH_BACKEND). */
  searchBackend: SearchBackendSetting | null;
  /** SearXNG's base URL, or null for the environment's (ASSISTANT_SEARXNG_URL). */
  searxngUrl: string | null;
  /** The quiet hours of users without their own, or null for none. */
  quietHours: QuietHours | null;
}

/** The longest reply deadline, in seconds (the webhook entry's run limit is 30 s more). */
export const MAX_REPLY_DEADLINE_SECONDS = 900;
/** The longest a run of the agent may take: the agent workflow's execution timeout (runLimitSeconds may be less). */
export const MAX_RUN_LIMIT_SECONDS = 1800;
/** The longest idle time before memory capture reads a session, in minutes (a day). */
export const MAX_CAPTURE_IDLE_MINUTES = 1440;
/** The most live memories a user may keep. */
export const MAX_MEMORY_BUDGET = 1_000_000;
/** The longest model call timeout, in seconds (a run that calls the model allows two such calls and a minute). */
export const MAX_MODEL_TIMEOUT_SECONDS = 600;

export const SEARCH_BACKEND_SETTINGS = ['duckduckgo', 'searxng'] as const;
export type SearchBackendSetting = (typeof SEARCH_BACKEND_SETTINGS)[number];
/** What a stored engine setting is set to so that the environment's applies again. */
export const FROM_ENVIRONMENT = 'default';

function requireIntSetting(value: unknown, field: string, min: number, max: number): number {
  const n = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < min || n > max) {
    throw new AssistantInputError(field, `must be an integer from ${min} to ${max}`);
  }
  return n;
}

function requireProbability(value: unknown, field: string): number {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof n !== 'number' || !(n >= 0 && n <= 1))
    throw new AssistantInputError(field, 'must be a number from 0 to 1');
  return Math.round(n * 1000) / 1000;
}

/** A provider's model name: 1–200 characters, no spaces or control characters (e.g. "openai/gpt-4o-mini"). */
export function requireChatModel(value: unknown, field = 'chatModel'): string {
  const name = typeof value === 'string' ? value.trim() : value;
  if (typeof name !== 'string' || !/^[^\s\p{Cc}]{1,200}$/u.test(name)) {
    throw new AssistantInputError(
      field,
      'must be a model name of 1 to 200 characters without spaces, e.g. gpt-4o-mini',
    );
  }
  return name;
}

const FIELDS = {
  assistantName: 'assistant_name',
  language: 'language',
  style: 'style',
  timeZone: 'time_zone',
  locale: 'locale',
} as const;

export async function requireLanguage(db: Queryable, value: unknown, field = 'language'): Promise<string> {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new AssistantInputError(field, 'must be a text search configuration such as english, german, simple');
  }
  const name = value.trim().toLowerCase();
  const found = await db.query('SELECT 1 FROM pg_ts_config WHERE cfgname = $1', [name]);
  if (found.rowCount === 0) {
    const all = await db.query<{ cfgname: string }>('SELECT cfgname FROM pg_ts_config ORDER BY cfgname');
    throw new AssistantInputError(
      field,
      `"${name}" is not a text search configuration; use one of ${all.rows.map((r) => r.cfgname).join(', ')}`,
    );
  }
  return name;
}

async function validatedChanges(db: Queryable, input: Record<string, unknown>): Promise<Partial<AssistantSettings>> {
  const changes: Partial<AssistantSettings> = {};
  if (input.assistantName !== undefined && input.assistantName !== '') {
    const name = optionalText(input.assistantName, 'assistantName', 100);
    if (!name?.trim()) throw new AssistantInputError('assistantName', 'must be a non-empty string');
    changes.assistantName = name.trim();
  }
  if (input.language !== undefined && input.language !== '')
    changes.language = await requireLanguage(db, input.language);
  if (input.style !== undefined && input.style !== '') changes.style = optionalText(input.style, 'style', 4000);
  if (input.timeZone !== undefined && input.timeZone !== '') changes.timeZone = requireTimeZone(input.timeZone);
  if (input.locale !== undefined && input.locale !== '') changes.locale = requireLocale(input.locale);
  return changes;
}

function rowToInstance(row: Record<string, unknown>): InstanceSettings {
  return {
    assistantName: row.assistant_name as string,
    language: row.language as string,
    style: row.style as string,
    timeZone: row.time_zone as string,
    locale: row.locale as string,
    ownerTelegramChatId: (row.owner_telegram_chat_id as string | null) ?? null,
    chatModel: row.chat_model as string,
    replyDeadlineSeconds: Number(row.reply_deadline_seconds),
    modelTimeoutSeconds: Number(row.model_timeout_seconds),
    maxMessageChars: Number(row.max_message_chars),
    heartbeatIntervalSeconds: Number(row.heartbeat_interval_seconds),
    nudgeCooldownMinutes: Number(row.nudge_cooldown_minutes),
    nudgeSoonHours: Number(row.nudge_soon_hours),
    urgentNudgeHours: Number(row.urgent_nudge_hours),
    deliveryMaxAttempts: Number(row.delivery_max_attempts),
    deliveryRetrySeconds: Number(row.delivery_retry_seconds),
    failureReportMinutes: Number(row.failure_report_minutes),
    questionTtlSeconds: Number(row.question_ttl_seconds),
    runLimitSeconds: Number(row.run_limit_seconds),
    captureIdleMinutes: Number(row.capture_idle_minutes),
    memoryBudget: Number(row.memory_budget),
    toolApprovals: (row.tool_approvals as Record<string, ToolApproval> | null) ?? {},
    approvalJudgeThreshold: Number(row.approval_judge_threshold),
    searchBackend: (row.search_backend as SearchBackendSetting | null) ?? null,
    searxngUrl: (row.searxng_url as string | null) ?? null,
    quietHours: quietHoursFromColumns(row),
  };
}

export async function getInstanceSettings(db: Queryable): Promise<InstanceSettings> {
  const result = await db.query('SELECT * FROM assistant.instance_settings');
  return rowToInstance(result.rows[0]);
}

/** Updates the defaults; `ownerTelegramChatId: null` removes the owner (the bot then answers no one). */
export async function updateInstanceSettings(db: Queryable, input: Record<string, unknown>): Promise<InstanceSettings> {
  const changes = await validatedChanges(db, input);
  const sets: string[] = [];
  const values: unknown[] = [];
  for (const [key, column] of Object.entries(FIELDS)) {
    const value = changes[key as keyof AssistantSettings];
    if (value !== undefined) {
      values.push(value);
      sets.push(`${column} = $${values.length}`);
    }
  }
  if (input.ownerTelegramChatId !== undefined && input.ownerTelegramChatId !== '') {
    const owner = input.ownerTelegramChatId === null ? null : String(input.ownerTelegramChatId).trim();
    if (owner !== null && !/^-?\d{1,20}$/.test(owner))
      throw new AssistantInputError('ownerTelegramChatId', 'must be an integer Telegram chat id');
    values.push(owner);
    sets.push(`owner_telegram_chat_id = $${values.length}`);
  }
  if (input.chatModel !== undefined && input.chatModel !== '') {
    values.push(requireChatModel(input.chatModel));
    sets.push(`chat_model = $${values.length}`);
  }
  if (input.searchBackend !== undefined && input.searchBackend !== '') {
    values.push(requireSearchBackend(input.searchBackend));
    sets.push(`search_backend = $${values.length}`);
  }
  if (input.searxngUrl !== undefined && input.searxngUrl !== '') {
    values.push(requireSearxngUrl(input.searxngUrl));
    sets.push(`searxng_url = $${values.length}`);
  }
  const limits: Array<[string, string, number, number]> = [
    ['replyDeadlineSeconds', 'reply_deadline_seconds', 1, MAX_REPLY_DEADLINE_SECONDS],
    ['modelTimeoutSeconds', 'model_timeout_seconds', 10, MAX_MODEL_TIMEOUT_SECONDS],
    ['maxMessageChars', 'max_message_chars', 1, 1_000_000],
    ['heartbeatIntervalSeconds', 'heartbeat_interval_seconds', 60, 86_400],
    ['nudgeCooldownMinutes', 'nudge_cooldown_minutes', 1, 10_080],
    ['nudgeSoonHours', 'nudge_soon_hours', 1, 168],
    ['urgentNudgeHours', 'urgent_nudge_hours', 0, 720],
    ['deliveryMaxAttempts', 'delivery_max_attempts', 1, 20],
    ['deliveryRetrySeconds', 'delivery_retry_seconds', 1, 3600],
    ['failureReportMinutes', 'failure_report_minutes', 0, 10_080],
    ['questionTtlSeconds', 'question_ttl_seconds', 5, 600],
    ['runLimitSeconds', 'run_limit_seconds', 10, MAX_RUN_LIMIT_SECONDS],
    ['captureIdleMinutes', 'capture_idle_minutes', 0, MAX_CAPTURE_IDLE_MINUTES],
    ['memoryBudget', 'memory_budget', 0, MAX_MEMORY_BUDGET],
  ];
  for (const [field, column, min, max] of limits) {
    if (input[field] === undefined || input[field] === '') continue;
    values.push(requireIntSetting(input[field], field, min, max));
    sets.push(`${column} = $${values.length}`);
  }
  if (input.toolApprovals !== undefined && input.toolApprovals !== '') {
    values.push(JSON.stringify(requireToolApprovals(input.toolApprovals)));
    // Merged over the stored rules; a tool set to "default" goes back to the registry's rule.
    const given = `$${values.length}::jsonb`;
    sets.push(
      `tool_approvals = (tool_approvals || ${given}) - ARRAY(SELECT key FROM jsonb_each_text(${given}) WHERE value = 'default')`,
    );
  }
  if (input.approvalJudgeThreshold !== undefined && input.approvalJudgeThreshold !== '') {
    values.push(requireProbability(input.approvalJudgeThreshold, 'approvalJudgeThreshold'));
    sets.push(`approval_judge_threshold = $${values.length}`);
  }
  if (input.quietHours !== undefined && input.quietHours !== '') {
    const quiet = requireQuietHours(input.quietHours, 'quietHours');
    values.push(quiet?.start ?? null, quiet?.end ?? null);
    sets.push(`quiet_start = $${values.length - 1}`, `quiet_end = $${values.length}`);
  }
  if (sets.length === 0) return getInstanceSettings(db);
  const result = await db.query(
    `UPDATE assistant.instance_settings SET ${sets.join(', ')}, updated_at = now() RETURNING *`,
    values,
  );
  return rowToInstance(result.rows[0]);
}

/** `{"<tool>": "never" | "ask-user" | "ask-operator" | "judge" | "default"}`, each tool one of the agent's. */
function requireToolApprovals(value: unknown): Record<string, ToolApproval | 'default'> {
  const given = typeof value === 'string' ? parseToolApprovals(value) : value;
  if (typeof given !== 'object' || given === null || Array.isArray(given)) {
    throw new AssistantInputError('toolApprovals', 'must be an object of tool names and rules');
  }
  const rules: Record<string, ToolApproval | 'default'> = {};
  for (const [name, rule] of Object.entries(given as Record<string, unknown>)) {
    const tool = toolByName(name);
    if (!tool) throw new AssistantInputError(`toolApprovals.${name}`, "is not one of the agent's tools");
    if (rule !== 'default' && !(TOOL_APPROVALS as readonly unknown[]).includes(rule)) {
      throw new AssistantInputError(`toolApprovals.${name}`, `must be ${TOOL_APPROVALS.join(', ')} or default`);
    }
    if (tool.asksItself && rule !== 'default' && rule !== tool.approval) {
      throw new AssistantInputError(`toolApprovals.${name}`, `always asks (${tool.approval}): its own workflow asks`);
    }
    rules[name] = rule as ToolApproval | 'default';
  }
  return rules;
}

function parseToolApprovals(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new AssistantInputError('toolApprovals', 'must be a JSON object, e.g. {"delete_task": "ask-user"}');
  }
}

function requireSearchBackend(value: unknown): SearchBackendSetting | null {
  const text = typeof value === 'string' ? value.trim().toLowerCase() : value;
  if (text === FROM_ENVIRONMENT) return null;
  if (typeof text !== 'string' || !(SEARCH_BACKEND_SETTINGS as readonly string[]).includes(text)) {
    throw new AssistantInputError(
      'searchBackend',
      `must be ${SEARCH_BACKEND_SETTINGS.join(' or ')} (or "${FROM_ENVIRONMENT}" for ASSISTANT_SEARCH_BACKEND)`,
    );
  }
  return text as SearchBackendSetting;
}

function requireSearxngUrl(value: unknown): string | null {
  if (typeof value === 'string' && value.trim().toLowerCase() === FROM_ENVIRONMENT) return null;
  let url: URL;
  try {
    url = new URL(String(value).trim());
  } catch {
    throw new AssistantInputError('searxngUrl', "must be SearXNG's base URL, e.g. http://searxng:8080");
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new AssistantInputError('searxngUrl', 'must be an http or https URL');
  }
  if (url.username || url.password) throw new AssistantInputError('searxngUrl', 'must not contain a user or password');
  return url.href;
}

/** True only when an owner is configured and this is their chat. */
export async function isTelegramOwner(db: Queryable, chatId: unknown): Promise<boolean> {
  const id = typeof chatId === 'number' ? String(chatId) : chatId;
  if (typeof id !== 'string' || !/^-?\d{1,20}$/.test(id.trim()))
    throw new AssistantInputError('chatId', 'must be an integer Telegram chat id');
  const settings = await getInstanceSettings(db);
  return settings.ownerTelegramChatId !== null && settings.ownerTelegramChatId === id.trim();
}

/** The settings in effect for a user: their overrides over the instance defaults. */
export async function getUserSettings(db: Queryable, userIdInput: unknown): Promise<AssistantSettings> {
  const userId = requireUserId(userIdInput);
  const result = await db.query(
    `SELECT coalesce(u.assistant_name, i.assistant_name) AS assistant_name, coalesce(u.language, i.language) AS language,
            coalesce(u.style, i.style) AS style, coalesce(u.time_zone, i.time_zone) AS time_zone,
            coalesce(u.locale, i.locale) AS locale
       FROM assistant.instance_settings i LEFT JOIN assistant.user_settings u ON u.user_id = $1`,
    [userId],
  );
  const row = result.rows[0];
  return {
    assistantName: row.assistant_name as string,
    language: row.language as string,
    style: row.style as string,
    timeZone: row.time_zone as string,
    locale: row.locale as string,
  };
}

export async function updateUserSettings(
  db: Queryable,
  userIdInput: unknown,
  input: Record<string, unknown>,
): Promise<AssistantSettings> {
  const userId = requireUserId(userIdInput);
  const changes = await validatedChanges(db, input);
  const user = await db.query('SELECT 1 FROM assistant.users WHERE id = $1', [userId]);
  if (user.rowCount === 0) throw new AssistantInputError('userId', 'no such user');
  await db.query(
    `INSERT INTO assistant.user_settings (user_id, assistant_name, language, style, time_zone, locale)
     VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (user_id) DO UPDATE SET
       assistant_name = coalesce(EXCLUDED.assistant_name, user_settings.assistant_name),
       language = coalesce(EXCLUDED.language, user_settings.language),
       style = coalesce(EXCLUDED.style, user_settings.style),
       time_zone = coalesce(EXCLUDED.time_zone, user_settings.time_zone),
       locale = coalesce(EXCLUDED.locale, user_settings.locale),
       updated_at = now()`,
    [
      userId,
      changes.assistantName ?? null,
      changes.language ?? null,
      changes.style ?? null,
      changes.timeZone ?? null,
      changes.locale ?? null,
    ],
  );
  return getUserSettings(db, userId);
}
