// The assistant's loopback fakes for the e2e run (listed in test/e2e/setup/fakes.ts). Each also points the
// assistant's credential templates (scripts/runtime/credentials/assistant-*.json) at itself through the same
// environment variables an operator would set, before n8n starts: the Telegram Trigger registers its webhook with
// the Telegram API when the agent workflow is activated, so the base URL must be right from the start.
import { startCallbackReceiver } from './callback-receiver';
import { startOpenAiChatFake } from './openai-chat';
import { startTelegramBotApiFake } from './telegram-bot-api';
import { startWeatherApi } from './weather-api';
import { startWebSite } from './web-site';
import { startLoginSite } from '../../assistant/test/browser/login-site';

/** A chat model id with a window of E2E_SMALL_WINDOW tokens, as far as the model gateway knows (ASSISTANT_MODEL_WINDOWS). */
export const E2E_SMALL_WINDOW_MODEL = 'e2e-small-window-model';
export const E2E_SMALL_WINDOW = 2000;
/** A chat model id the model gateway prices (ASSISTANT_MODEL_PRICES), for the spending-cap tests. */
export const E2E_PRICED_MODEL = 'e2e-priced-model';
/** Test-only values; the fakes accept exactly these. */
export const E2E_LLM_API_KEY = 'sk-e2e-fake-llm-key-0001';
export const E2E_TELEGRAM_BOT_TOKEN = '7000000001:e2e-fake-telegram-token-abcdefghijk';
export const E2E_CALLBACK_SECRET = 'e2e-callback-signing-secret-7f3a9c2e';
/** The login site's account (its password is kept in the Assistant Site Logins credential) and TOTP secret. */
export const E2E_SITE_USERNAME = 'ada';
export const E2E_SITE_PASSWORD = 'e2e-site-password-Zq81xv';
export const E2E_SITE_TOTP_SECRET = Buffer.from('e2e-totp-secret-0123456789', 'utf8');
/** The weather API's key, kept in an n8n credential (Query Auth) that the built tool names. */
export const E2E_WEATHER_API_KEY = 'e2e-weather-key-4c1d9a7b2e';

/** Adds a loopback `host:port` to the outbound guard's allow list n8n gets (ASSISTANT_OUTBOUND_ALLOW). */
function allowOutbound(hostPort: string): void {
  const list = (process.env.ASSISTANT_OUTBOUND_ALLOW ?? '').split(',').filter(Boolean);
  process.env.ASSISTANT_OUTBOUND_ALLOW = [...list, hostPort].join(',');
}

export const assistantFakes = [
  {
    name: 'openai-chat',
    async start() {
      const fake = await startOpenAiChatFake({ apiKey: E2E_LLM_API_KEY });
      // The operator's providers, as the model gateway reads them (n8n's credentials get the gateway's URL and key).
      for (const upstream of ['LLM', 'EMBEDDINGS', 'TRANSCRIPTION']) {
        process.env[`ASSISTANT_${upstream}_BASE_URL`] = `${fake.url}/v1`;
        process.env[`ASSISTANT_${upstream}_API_KEY`] = E2E_LLM_API_KEY;
      }
      // A model the gateway knows only a small window of (the tests that see a prompt refused use it).
      process.env.ASSISTANT_MODEL_WINDOWS = `${E2E_SMALL_WINDOW_MODEL}=${E2E_SMALL_WINDOW}`;
      // A priced model (the fake is on the loopback, which is free otherwise): $1/M prompt, $0.5/M cached, $4/M output.
      process.env.ASSISTANT_MODEL_PRICES = `${E2E_PRICED_MODEL}=1/0.5/4`;
      return fake;
    },
  },
  {
    name: 'telegram-bot-api',
    async start() {
      const fake = await startTelegramBotApiFake({ token: E2E_TELEGRAM_BOT_TOKEN });
      process.env.ASSISTANT_TELEGRAM_API_URL = fake.url;
      process.env.ASSISTANT_TELEGRAM_BOT_TOKEN = E2E_TELEGRAM_BOT_TOKEN;
      return fake;
    },
  },
  {
    name: 'callback-receiver',
    async start() {
      // The one loopback address the outbound guard lets proactive callbacks reach in the e2e run.
      const fake = await startCallbackReceiver();
      allowOutbound(new URL(fake.url).host);
      process.env.ASSISTANT_CALLBACK_SECRET = E2E_CALLBACK_SECRET;
      return fake;
    },
  },
  {
    name: 'web-site',
    async start() {
      // DuckDuckGo's HTML endpoint and the pages its results point at: the keyless search backend's real format.
      const fake = await startWebSite();
      process.env.ASSISTANT_SEARCH_BACKEND = 'duckduckgo';
      process.env.ASSISTANT_DUCKDUCKGO_URL = `${fake.url}/html/`;
      allowOutbound(new URL(fake.url).host);
      return fake;
    },
  },
  {
    name: 'login-site',
    async start() {
      // A sign-in behind a one-time code (TOTP), for the browser tools and the code hand-off.
      const fake = await startLoginSite({
        username: E2E_SITE_USERNAME,
        password: E2E_SITE_PASSWORD,
        totpSecret: E2E_SITE_TOTP_SECRET,
      });
      allowOutbound(fake.hostPort);
      return fake;
    },
  },
  {
    name: 'weather-api',
    async start() {
      // The REST API a built tool calls (tool building), reachable through the outbound guard.
      const fake = await startWeatherApi(E2E_WEATHER_API_KEY);
      allowOutbound(new URL(fake.url).host);
      return fake;
    },
  },
];
