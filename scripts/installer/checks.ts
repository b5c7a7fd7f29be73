// The installer's checks over the network: the provider key (one call to its model list, assistant-core's
// checkProviderKey), one real call to each model it configures (model-checks.ts) and the Telegram bot (getMe, and getUpdates for the chats that wrote to it) with
// node-telegram-bot-api. Base URLs can be pointed elsewhere (a proxy, or loopback fakes in tests).
import { checkProviderKey } from 'assistant-core';
import { embeddingsCall, judgeCall, transcriptionCall } from './model-checks';
import type { InstallerChecks } from './questions';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const TelegramBot = require('node-telegram-bot-api');

interface TelegramChat {
  id: number;
  type: string;
  title?: string;
  username?: string;
  first_name?: string;
}

function describeTelegramError(error: unknown): string {
  const response = (error as { response?: { statusCode?: number; body?: { description?: string } } }).response;
  if (response?.statusCode === 401 || response?.statusCode === 404) {
    return 'Telegram refused the bot token (check it with @BotFather)';
  }
  if (response?.body?.description) return `Telegram answered: ${response.body.description}`;
  return `Telegram could not be reached (${(error as Error).message})`;
}

export function installerChecks(options: { telegramApiUrl?: string; providerBaseUrl?: string } = {}): InstallerChecks {
  const bot = (token: string) =>
    new TelegramBot(token, {
      polling: false,
      ...(options.telegramApiUrl ? { baseApiUrl: options.telegramApiUrl } : {}),
    });
  const models = { providerBaseUrl: options.providerBaseUrl };
  return {
    async checkKey(provider, key) {
      const result = await checkProviderKey(
        provider,
        key,
        options.providerBaseUrl ? { baseUrl: options.providerBaseUrl } : {},
      );
      return result.ok ? { ok: true } : { ok: false, message: result.message };
    },
    judgeCall: (provider, key, model) => judgeCall(provider, key, model, models),
    embeddingsCall: (provider, key, model) => embeddingsCall(provider, key, model, models),
    transcriptionCall: (provider, key, model) => transcriptionCall(provider, key, model, models),
    async botName(token) {
      try {
        const me = (await bot(token).getMe()) as { username?: string };
        return { ok: true, username: me.username ?? '' };
      } catch (error) {
        return { ok: false, message: describeTelegramError(error) };
      }
    },
    async recentChats(token) {
      let updates: Array<{ message?: { chat: TelegramChat } }>;
      try {
        updates = await bot(token).getUpdates({ timeout: 0, limit: 100 });
      } catch (error) {
        throw new Error(`${describeTelegramError(error)}; type the chat id instead`);
      }
      const chats = new Map<string, { id: string; title: string }>();
      for (const update of [...updates].reverse()) {
        const chat = update.message?.chat;
        if (!chat || chats.has(String(chat.id))) continue;
        const title = chat.title ?? (chat.username ? `@${chat.username}` : (chat.first_name ?? chat.type));
        chats.set(String(chat.id), { id: String(chat.id), title });
      }
      return [...chats.values()];
    },
  };
}
