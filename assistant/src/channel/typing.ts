// "typing…" on Telegram while a turn runs. A chat action shows for 5 s, so it is sent at once and then every 4 s, until
// the turn no longer runs (answered, failed, or waiting on a question it asked) or its deadline passes. It never
// fails the turn: a failed send is reported and the loop goes on; it stops by itself.
import type { Queryable } from '../storage/db';
import { getTurn } from '../turns/lifecycle';

/** A chat action lasts 5 s on Telegram: sending every 4 s keeps it on screen. */
export const TYPING_EVERY_MS = 4000;
/** One sendChatAction may take this long, so sends never pile up. */
export const CHAT_ACTION_TIMEOUT_MS = 3500;

export interface KeepTypingOptions {
  /** Sends the chat action once; a rejection is reported through onError and the loop goes on. */
  send: () => Promise<void>;
  /** Whether the turn still runs; false or a failed read stops the loop. */
  isRunning: () => Promise<boolean>;
  /** When to stop even if the turn still runs. */
  until: Date;
  everyMs?: number;
  now?: () => number;
  /** Waits `ms` (by default an unref'd timer, so the loop never keeps a process alive). */
  sleep?: (ms: number) => Promise<void>;
  onError?: (error: unknown) => void;
}

export interface TypingOutcome {
  sent: number;
  failed: number;
  /** finished: the turn no longer runs; deadline: `until` passed; unknown: its state could not be read. */
  stopped: 'finished' | 'deadline' | 'unknown';
}

/** A timer that does not keep the process alive. */
export const unrefSleep = (ms: number): Promise<void> =>
  new Promise((resolve) => {
    setTimeout(resolve, ms).unref();
  });

/** Sends at 0, everyMs, 2·everyMs … (counted from the start, so slow sends do not drift) while the turn runs. */
export async function keepTyping(options: KeepTypingOptions): Promise<TypingOutcome> {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? unrefSleep;
  const everyMs = options.everyMs ?? TYPING_EVERY_MS;
  const until = options.until.getTime();
  const start = now();
  const outcome = { sent: 0, failed: 0 };
  for (let round = 1; ; round++) {
    if (now() >= until) return { ...outcome, stopped: 'deadline' };
    let running: boolean;
    try {
      running = await options.isRunning();
    } catch (error) {
      options.onError?.(error);
      return { ...outcome, stopped: 'unknown' };
    }
    if (!running) return { ...outcome, stopped: 'finished' };
    try {
      await options.send();
      outcome.sent++;
    } catch (error) {
      outcome.failed++;
      options.onError?.(error);
    }
    const next = Math.min(start + round * everyMs, until);
    const wait = next - now();
    if (wait > 0) await sleep(wait);
  }
}

/** Whether the turn's run still works on it: pending, and not waiting on a question it asked the user. */
export async function isTurnRunning(db: Queryable, userId: unknown, turnId: unknown): Promise<boolean> {
  const turn = await getTurn(db, userId, turnId);
  return turn.status === 'pending' && !turn.question;
}

export interface TelegramBotApi {
  /** https://api.telegram.org, or the bot credential's base URL. */
  baseUrl: string;
  token: string;
}

/** Telegram's sendChatAction; rejects with what Telegram answered (never the URL: it holds the bot token). */
export async function sendChatAction(
  api: TelegramBotApi,
  chatId: string,
  action = 'typing',
  timeoutMs = CHAT_ACTION_TIMEOUT_MS,
): Promise<void> {
  const base = api.baseUrl.replace(/\/+$/, '') || 'https://api.telegram.org';
  let response: Response;
  try {
    response = await fetch(`${base}/bot${api.token}/sendChatAction`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ chat_id: chatId, action }),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    throw new Error(`sendChatAction: Telegram could not be reached (${(error as Error).name})`);
  }
  const answer = (await response.json().catch(() => ({}))) as { ok?: boolean; description?: string };
  if (!response.ok || answer.ok !== true) {
    throw new Error(`sendChatAction: Telegram answered HTTP ${response.status}: ${answer.description ?? 'no JSON'}`);
  }
}
