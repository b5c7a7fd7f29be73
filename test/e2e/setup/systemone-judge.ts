// The real judge server for the e2e run, backed by the deterministic fake OpenAI logprobs server, so its answers
// are reproducible and the wrapper's can be compared with them. Registered in ./fakes.ts; its URL and the test
// keys are put in the environment the credential templates read (scripts/runtime/credentials/systemone-*.json).
import { startJudgeServer } from '../../../judge/src/server';
import { startFakeOpenAI } from '../../../judge/test/fakes/openai-logprobs';
import type { LoopbackFake } from './fakes';

/** Throw-away keys for the test stack only. */
export const E2E_JUDGE_KEY = 'e2e-judge-server-key';
export const E2E_WRAPPER_KEY = 'e2e-wrapper-inbound-key';
export const E2E_JUDGE_MODEL = 'judge-e2e-fake-2026-11-01';

export const systemOneJudgeFake: LoopbackFake = {
  name: 'systemone-judge',
  async start() {
    const openai = await startFakeOpenAI();
    const server = await startJudgeServer({
      host: '127.0.0.1',
      port: 0,
      apiKeys: [E2E_JUDGE_KEY],
      backend: { kind: 'openai', baseUrl: openai.baseUrl, upstreamModel: 'fake-logprobs', id: E2E_JUDGE_MODEL },
      log: () => undefined,
    });
    process.env.SYSTEMONE_JUDGE_URL = server.url;
    process.env.SYSTEMONE_JUDGE_KEY = E2E_JUDGE_KEY;
    process.env.SYSTEMONE_WRAPPER_KEY = E2E_WRAPPER_KEY;
    return {
      url: server.url,
      async close() {
        await server.close();
        await openai.close();
      },
    };
  },
};
