// The playground's interfaces: what it is given by the server, what it offers it, and what the page learns.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { JudgeEngine } from '../../engine/engine';
import type { ServerLimits } from '../limits';
import type { Clock } from './quota';
import type { PlaygroundSettings } from './settings';

/** What the page (and the serve command) learn about the open mode. */
export interface PlaygroundStatus {
  enabled: boolean;
  open: boolean;
  /** Why the open mode is on or off, as a sentence fragment. */
  reason: string;
}

export interface PlaygroundContext {
  settings?: Partial<PlaygroundSettings>;
  /** The server's engine: the same validation, token limits and answers as POST /v1/systemone. */
  engine: JudgeEngine;
  limits: ServerLimits;
  /** The server's in-flight requests, aborted on a forced shutdown (a request's ticket, or a controller). */
  inFlight: Set<{ abort(reason?: unknown): void }>;
  /** Runs a judging task through the server's one admission queue (server/admission.ts). */
  admit: <T>(task: (signal: AbortSignal) => Promise<T>, signal: AbortSignal) => Promise<T>;
  /** The address the server listens on (read on first use). */
  address: () => AddressInfo | string | null;
  now?: Clock;
}

export interface Playground {
  /** Whether a path is the playground's (false for every path when it is disabled). */
  handles(path: string): boolean;
  route(
    req: IncomingMessage,
    res: ServerResponse,
    line: PlaygroundLogLine,
    timing: string[],
  ): Promise<[number, unknown]>;
  status(): PlaygroundStatus;
}

/** The fields of the server's log line the playground fills in. */
export interface PlaygroundLogLine {
  request_id: string;
  path: string;
  model?: string;
  questions?: number;
  input_tokens?: number;
  output_tokens?: number;
}
