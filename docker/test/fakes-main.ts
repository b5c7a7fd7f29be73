// The install test's stand-ins for what cannot be reached from here, run on the host beside the stack (scripts/
// test-docker.sh): the OpenAI-compatible chat fake and the Telegram Bot API fake, the same fakes the e2e tests use
// (test/fakes). They listen on the host's loopback; a plain TCP forwarder from 0.0.0.0 makes each reachable from the
// containers too (the gateway by host.docker.internal, as an operator's model server on the host; n8n and
// assistant-setup by the server's IP), and from the installer's checks on the host.
// With FAKE_WEB_SITE=1 also the web-site fake (a page whose text a script inserts), on the loopback only.
//   node fakes.js <ports file>     writes {"llm": port, "telegram": port[, "web": port]} there once all listen
import { writeFileSync } from 'node:fs';
import { startOpenAiChatFake } from '../../test/fakes/openai-chat';
import { startTelegramBotApiFake } from '../../test/fakes/telegram-bot-api';
import { startWebSite } from '../../test/fakes/web-site';
import { forward } from './tcp-forward';

void (async () => {
  const portsFile = process.argv[2];
  if (!portsFile) throw new Error('usage: fakes.js <ports file>');
  const llm = await startOpenAiChatFake({ apiKey: process.env.FAKE_LLM_API_KEY });
  const telegram = await startTelegramBotApiFake({ token: process.env.FAKE_TELEGRAM_TOKEN ?? '' });
  const ports: Record<string, number> = { llm: await forward(llm.url), telegram: await forward(telegram.url) };
  if (process.env.FAKE_WEB_SITE === '1') ports.web = Number(new URL((await startWebSite()).url).port);
  writeFileSync(portsFile, JSON.stringify(ports));
  console.log(`fakes: chat model on :${ports.llm}, Telegram Bot API on :${ports.telegram}`);
})().catch((error: Error) => {
  console.error(`fakes: ${error.message}`);
  process.exit(1);
});
