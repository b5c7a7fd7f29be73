// The secrets of the e2e run that must never be at rest in n8n's database (scanned when the stack shuts down).
import {
  E2E_CALLBACK_SECRET,
  E2E_LLM_API_KEY,
  E2E_SITE_PASSWORD,
  E2E_TELEGRAM_BOT_TOKEN,
  E2E_WEATHER_API_KEY,
} from '../../fakes/assistant-e2e-fakes';

/** The bearer token of the MCP server of exposed tools the tests set on its credential. */
export const E2E_MCP_TOKEN = 'e2e-mcp-bearer-token-93c1f0a2';

/** The assistant's X-API-Key the tests set on its credential. */
export const E2E_ASSISTANT_API_KEY = 'e2e-assistant-api-key-5b1d0c';

export const E2E_SECRETS_AT_REST: Record<string, string> = {
  'assistant API key': E2E_ASSISTANT_API_KEY,
  'Telegram bot token': E2E_TELEGRAM_BOT_TOKEN,
  'LLM provider key': E2E_LLM_API_KEY,
  'callback signing secret': E2E_CALLBACK_SECRET,
  'site login password': E2E_SITE_PASSWORD,
  'weather API key': E2E_WEATHER_API_KEY,
  'MCP bearer token': E2E_MCP_TOKEN,
};
