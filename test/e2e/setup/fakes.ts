// Loopback servers the e2e run starts before n8n. Each speaks a real protocol (OpenAI, Telegram Bot API, …) on
// 127.0.0.1; its URL is put in the environment as E2E_<NAME>_URL (name upper-cased, non-alphanumerics → _),
// so credential templates (scripts/runtime/credentials/*.json) can point n8n at it: "url": "${E2E_OPENAI_URL}".
// Append yours to `fakes`.
import { systemOneJudgeFake } from './systemone-judge';
import { assistantFakes } from '../../fakes/assistant-e2e-fakes';

export interface RunningFake {
  url: string;
  close(): Promise<void>;
}

export interface LoopbackFake {
  name: string;
  start(): Promise<RunningFake>;
}

export const fakes: LoopbackFake[] = [systemOneJudgeFake, ...assistantFakes];

export function fakeEnvName(name: string): string {
  return `E2E_${name.toUpperCase().replace(/[^A-Z0-9]+/g, '_')}_URL`;
}
