// The Docker test's stand-ins for what cannot be reached from here, in one container on the compose network: the
// OpenAI-compatible chat fake (port 9000) and the Telegram Bot API fake (port 9001), the same fakes the e2e tests
// use (test/fakes), each behind a plain TCP forwarder from 0.0.0.0 because they listen on the container's loopback.
import net from 'node:net';
import { startOpenAiChatFake } from '../../test/fakes/openai-chat';
import { startTelegramBotApiFake } from '../../test/fakes/telegram-bot-api';

function forward(fromPort: number, toUrl: string): void {
  const target = new URL(toUrl);
  net
    .createServer((client) => {
      const upstream = net.connect(Number(target.port), target.hostname);
      client.pipe(upstream).pipe(client);
      const close = () => {
        client.destroy();
        upstream.destroy();
      };
      client.on('error', close);
      upstream.on('error', close);
    })
    .listen(fromPort, '0.0.0.0');
}

void (async () => {
  const llm = await startOpenAiChatFake({ apiKey: process.env.FAKE_LLM_API_KEY });
  const telegram = await startTelegramBotApiFake({ token: process.env.FAKE_TELEGRAM_TOKEN ?? '' });
  forward(9000, llm.url);
  forward(9001, telegram.url);
  console.log('fakes: chat model on :9000, Telegram Bot API on :9001');
})();
