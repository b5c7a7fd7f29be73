// What the e2e global setup hands to the tests (vitest `provide` / `inject`).

export interface E2EStackInfo {
  n8nUrl: string;
  webhookUrl: string;
  apiKey: string;
  owner: { email: string; password: string };
  postgresUrl: string;
  userFolder: string;
  logFile: string;
  /** The browser service's log, or null when the stack has none (no Chromium). */
  browserLogFile: string | null;
  /** The browser service's URL and key (its task list is read by tests), or null when the stack has none. */
  browser: { url: string; key: string } | null;
  /** Imported workflows and whether they were activated. */
  workflows: Array<{ id: string; name: string; file: string; triggered: boolean; active: boolean }>;
  /** E2E_<NAME>_URL of each loopback fake. */
  fakeUrls: Record<string, string>;
  /** PIDs of n8n, its task runners and Postgres (last) at start-up. */
  pids: number[];
  /** The model gateway the credentials point at (its log: every call it could not record, and its start). */
  gateway: { url: string; key: string; logFile: string | null; clockFile: string | null };
  /** The global setup's control server: GET /pids (now), POST /n8n/restart?down_ms=…, POST /browser/restart */
  controlUrl: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    e2eStack: E2EStackInfo;
  }
}
