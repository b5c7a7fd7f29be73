// The installer's questions (setup.sh): what each asks, its settings name in local.env, its default, and how the
// answer is checked. Checks that need the network (the provider's key, the bot token, the chat) are given as
// functions, so the flow is the same on a TTY, from an answers file and in tests against loopback fakes.
import {
  AI_PROVIDERS,
  type AssistantInputError,
  CAP_OFF,
  DEFAULT_INSTANCE_CAPS_USD,
  INSTANCE_CAP_SETTINGS,
  providerById,
  requireCapUsd,
  requireChatModel,
  requireLocale,
  requireTimeZone,
  type AiProvider,
} from 'assistant-core';
import { FEATURE_QUESTIONS, JUDGE_QUESTIONS, modelSettings } from './model-questions';

/** Postgres 17's built-in text-search configurations: the assistant's language setting is one of them. */
export const LANGUAGES = [
  'simple',
  'arabic',
  'armenian',
  'basque',
  'catalan',
  'danish',
  'dutch',
  'english',
  'finnish',
  'french',
  'german',
  'greek',
  'hindi',
  'hungarian',
  'indonesian',
  'irish',
  'italian',
  'lithuanian',
  'nepali',
  'norwegian',
  'portuguese',
  'romanian',
  'russian',
  'serbian',
  'spanish',
  'swedish',
  'tamil',
  'turkish',
  'yiddish',
] as const;

/** The text-search configuration of a locale's language (ISO 639-1), where Postgres has one. */
const TEXT_SEARCH_BY_LANGUAGE: Record<string, (typeof LANGUAGES)[number]> = {
  ar: 'arabic',
  hy: 'armenian',
  eu: 'basque',
  ca: 'catalan',
  da: 'danish',
  nl: 'dutch',
  en: 'english',
  fi: 'finnish',
  fr: 'french',
  de: 'german',
  el: 'greek',
  hi: 'hindi',
  hu: 'hungarian',
  id: 'indonesian',
  ga: 'irish',
  it: 'italian',
  lt: 'lithuanian',
  ne: 'nepali',
  nb: 'norwegian',
  nn: 'norwegian',
  no: 'norwegian',
  pt: 'portuguese',
  ro: 'romanian',
  ru: 'russian',
  sr: 'serbian',
  es: 'spanish',
  sv: 'swedish',
  ta: 'tamil',
  tr: 'turkish',
  yi: 'yiddish',
};

/** The text-search language that fits a locale (de-AT → german), `simple` where none fits (ja). */
export function textSearchLanguage(locale: string | undefined): string {
  return TEXT_SEARCH_BY_LANGUAGE[(locale ?? '').split('-')[0].toLowerCase()] ?? 'simple';
}

/** The answers so far, by settings name (local.env). */
export type Answers = Record<string, string>;

/** A real call's outcome: what went wrong, in a sentence without the key. */
export type CallCheck = { ok: true; detail: string } | { ok: false; message: string };

/** What a check needs from outside: the provider's key check, one real call per model, and the Telegram calls. */
export interface InstallerChecks {
  checkKey(provider: AiProvider, key: string): Promise<{ ok: true } | { ok: false; message: string }>;
  /** One real judge question (the judge's own probe); detail: the scoring method it will use. */
  judgeCall(provider: AiProvider, key: string, model: string): Promise<CallCheck>;
  /** One real embedding; detail: its dimensions. */
  embeddingsCall(provider: AiProvider, key: string, model: string): Promise<CallCheck>;
  /** One real transcription of half a second of silence. */
  transcriptionCall(provider: AiProvider, key: string, model: string): Promise<CallCheck>;
  /** The bot's @username, or why the token is refused. */
  botName(token: string): Promise<{ ok: true; username: string } | { ok: false; message: string }>;
  /** The chats that wrote to the bot, newest first. */
  recentChats(token: string): Promise<Array<{ id: string; title: string }>>;
}

export interface Question {
  /** Its settings name in local.env. */
  key: string;
  prompt: (answers: Answers) => string;
  /** Asked only when this says so (e.g. the chat id only with a bot token). */
  when?: (answers: Answers) => boolean;
  /** The answer when none is given (shown in brackets); undefined: an answer is required. */
  defaultValue?: (answers: Answers) => string | undefined;
  secret?: boolean;
  /** The answer as stored, or throws an Error whose message says what is wrong. */
  check: (value: string, answers: Answers, checks: InstallerChecks) => Promise<string>;
}

const EMAIL_ADDRESS = /^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/;

/** The email channel's IMAP or SMTP server (n8n's credentials of those types): host, port, login, password. */
function emailServerQuestions(kind: 'IMAP' | 'SMTP', port: number): Question[] {
  const key = (name: string) => `ASSISTANT_EMAIL_${kind}_${name}`;
  const when = (answers: Answers) => Boolean(answers.ASSISTANT_EMAIL_ADDRESS);
  return [
    {
      key: key('HOST'),
      when,
      prompt: () => `${kind} server (host name; ${kind === 'IMAP' ? 'TLS on connect' : 'STARTTLS'})`,
      check: async (value) => {
        const host = value.trim().toLowerCase();
        if (!/^[a-z0-9.-]{1,253}$/.test(host)) throw new Error('a host name like mail.example.org');
        return host;
      },
    },
    {
      key: key('PORT'),
      when,
      prompt: () => `${kind} port`,
      defaultValue: () => String(port),
      check: async (value) => {
        const number = Number(value.trim() || port);
        if (!Number.isInteger(number) || number < 1 || number > 65535) throw new Error('a port from 1 to 65535');
        return String(number);
      },
    },
    {
      key: key('USER'),
      when,
      prompt: () => `${kind} login`,
      defaultValue: (answers) => answers.ASSISTANT_EMAIL_IMAP_USER || answers.ASSISTANT_EMAIL_ADDRESS,
      check: async (value) => {
        if (value.trim() === '') throw new Error('the login is needed');
        return value.trim();
      },
    },
    {
      key: key('PASSWORD'),
      when,
      prompt: () => `${kind} password (an app password where the provider has them)`,
      defaultValue: (answers) => (kind === 'SMTP' ? answers.ASSISTANT_EMAIL_IMAP_PASSWORD : undefined),
      secret: true,
      check: async (value) => {
        if (value === '') throw new Error('the password is needed');
        return value;
      },
    },
  ];
}

const provider = (answers: Answers): AiProvider => providerById(answers.ASSISTANT_PROVIDER ?? '') ?? AI_PROVIDERS[0];

/** The instance's daily or monthly cap in US dollars on model calls (docs/MODELS.md): an amount, or off for none. */
function spendingCapQuestion(period: 'day' | 'month', label: string): Question {
  const suggested = String(DEFAULT_INSTANCE_CAPS_USD[period]);
  return {
    key: INSTANCE_CAP_SETTINGS[period].usd,
    prompt: () => `${label} spending cap in US dollars for model calls (suggested ${suggested}; '${CAP_OFF}' for none)`,
    defaultValue: () => suggested,
    check: async (value) => {
      // Empty (a settings file written before the question existed): the suggested cap.
      if (value.trim() === '') return suggested;
      try {
        const amount = requireCapUsd(value);
        return amount === null ? CAP_OFF : String(amount);
      } catch (error) {
        throw new Error((error as AssistantInputError).reason);
      }
    },
  };
}

const HOSTNAME = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i;

export const QUESTIONS: Question[] = [
  {
    key: 'ASSISTANT_PROVIDER',
    prompt: () =>
      `AI provider (${AI_PROVIDERS.map((entry) => `${entry.id}${entry.kind === 'local' ? ' = a local runner' : ''}`).join(', ')})`,
    defaultValue: () => AI_PROVIDERS.find((entry) => entry.kind === 'default')?.id,
    check: async (value) => {
      const id = value.trim().toLowerCase();
      if (!providerById(id))
        throw new Error(`"${value}" is not one of ${AI_PROVIDERS.map((entry) => entry.id).join(', ')}`);
      return id;
    },
  },
  {
    key: 'ASSISTANT_LLM_API_KEY',
    prompt: (answers) => `${provider(answers).name} API key (${provider(answers).keyHint})`,
    defaultValue: (answers) => (provider(answers).keyRequired ? undefined : 'local'),
    secret: true,
    check: async (value, answers, checks) => {
      const key = value.trim();
      if (/\s/.test(key)) throw new Error('a key has no spaces');
      const result = await checks.checkKey(provider(answers), key);
      if (!result.ok) throw new Error(result.message);
      return key;
    },
  },
  {
    key: 'ASSISTANT_LLM_MODEL',
    prompt: () => 'Chat model (one that supports tool calling)',
    defaultValue: (answers) => provider(answers).exampleModel,
    check: async (value) => requireChatModel(value.trim(), 'model'),
  },
  ...JUDGE_QUESTIONS,
  ...FEATURE_QUESTIONS,
  {
    key: 'ASSISTANT_TELEGRAM_BOT_TOKEN',
    prompt: () => 'Telegram bot token from @BotFather (empty: no Telegram)',
    defaultValue: () => '',
    secret: true,
    check: async (value, _answers, checks) => {
      const token = value.trim();
      if (token === '') return '';
      if (!/^\d{5,12}:[A-Za-z0-9_-]{30,}$/.test(token)) {
        throw new Error('a bot token looks like 123456789:AA… (from @BotFather)');
      }
      const bot = await checks.botName(token);
      if (!bot.ok) throw new Error(bot.message);
      return token;
    },
  },
  {
    key: 'ASSISTANT_TELEGRAM_OWNER_CHAT_ID',
    when: (answers) => Boolean(answers.ASSISTANT_TELEGRAM_BOT_TOKEN),
    prompt: () => 'Your Telegram chat id: send any message to your bot now, then press Enter (or type the id)',
    defaultValue: () => '',
    check: async (value, answers, checks) => {
      const typed = value.trim();
      if (typed !== '') {
        if (!/^-?\d{1,20}$/.test(typed)) throw new Error('a chat id is a number, e.g. 123456789');
        return typed;
      }
      const chats = await checks.recentChats(answers.ASSISTANT_TELEGRAM_BOT_TOKEN);
      if (chats.length === 0) {
        throw new Error('the bot has no messages yet: send it any message in Telegram, then press Enter again');
      }
      if (chats.length > 1) {
        const list = chats.map((chat) => `${chat.id} (${chat.title})`).join(', ');
        throw new Error(`several chats wrote to the bot: ${list}; type the id of yours`);
      }
      return chats[0].id;
    },
  },
  {
    key: 'ASSISTANT_DM_POLICY_TELEGRAM',
    when: (answers) => Boolean(answers.ASSISTANT_TELEGRAM_BOT_TOKEN),
    prompt: () =>
      'Who may talk to the bot: owner (only you), pairing (people you give a one-time code), allowlist (chat ids you list)',
    defaultValue: () => 'owner',
    check: async (value) => {
      const policy = value.trim().toLowerCase() || 'owner';
      if (!['owner', 'pairing', 'allowlist'].includes(policy)) throw new Error('one of owner, pairing, allowlist');
      return policy;
    },
  },
  {
    key: 'ASSISTANT_DM_ALLOW_TELEGRAM',
    when: (answers) => answers.ASSISTANT_DM_POLICY_TELEGRAM === 'allowlist',
    prompt: () => 'The Telegram chat ids allowed besides yours, comma-separated',
    check: async (value) => {
      const ids = value.split(/[\s,]+/).filter(Boolean);
      if (ids.length === 0) throw new Error('an allow list needs at least one chat id');
      const bad = ids.find((id) => !/^-?\d{1,20}$/.test(id));
      if (bad !== undefined) throw new Error(`"${bad}" is not a chat id (a number, e.g. 123456789)`);
      return ids.join(',');
    },
  },
  {
    key: 'ASSISTANT_SLACK_BOT_TOKEN',
    prompt: () => 'Slack bot token (xoxb-…, from your Slack app: docs/ASSISTANT.md, Slack; empty: no Slack)',
    defaultValue: () => '',
    secret: true,
    check: async (value) => {
      const token = value.trim();
      if (token === '') return '';
      if (!/^xoxb-[A-Za-z0-9-]{10,}$/.test(token))
        throw new Error('a bot token looks like xoxb-… (OAuth & Permissions)');
      return token;
    },
  },
  {
    key: 'ASSISTANT_SLACK_APP_TOKEN',
    when: (answers) => Boolean(answers.ASSISTANT_SLACK_BOT_TOKEN),
    prompt: () => 'Slack app-level token with connections:write (xapp-…, for Socket Mode: no public URL needed)',
    secret: true,
    check: async (value) => {
      const token = value.trim();
      if (!/^xapp-[A-Za-z0-9-]{10,}$/.test(token))
        throw new Error('an app-level token looks like xapp-… (Basic Information)');
      return token;
    },
  },
  {
    key: 'ASSISTANT_SLACK_OWNER_USER_ID',
    when: (answers) => Boolean(answers.ASSISTANT_SLACK_BOT_TOKEN),
    prompt: () => 'Your Slack member ID (profile → ⋯ → Copy member ID): the only one the app answers',
    check: async (value) => {
      const id = value.trim().toUpperCase();
      if (!/^[UW][A-Z0-9]{2,30}$/.test(id)) throw new Error('a member ID looks like U012AB3CD');
      return id;
    },
  },
  {
    key: 'ASSISTANT_EMAIL_ADDRESS',
    prompt: () => "The assistant's own email address, read by IMAP and sent from by SMTP (empty: no email)",
    defaultValue: () => '',
    check: async (value) => {
      const address = value.trim().toLowerCase();
      if (address !== '' && !EMAIL_ADDRESS.test(address))
        throw new Error('an address looks like assistant@example.org');
      return address;
    },
  },
  ...emailServerQuestions('IMAP', 993),
  ...emailServerQuestions('SMTP', 587),
  {
    key: 'ASSISTANT_DM_POLICY_EMAIL',
    when: (answers) => Boolean(answers.ASSISTANT_EMAIL_ADDRESS),
    prompt: () =>
      'Who may email the assistant: allowlist (addresses you list), pairing (people you give a code), owner',
    defaultValue: () => 'allowlist',
    check: async (value) => {
      const policy = value.trim().toLowerCase() || 'allowlist';
      if (!['owner', 'pairing', 'allowlist'].includes(policy)) throw new Error('one of allowlist, pairing, owner');
      return policy;
    },
  },
  {
    key: 'ASSISTANT_DM_ALLOW_EMAIL',
    when: (answers) => answers.ASSISTANT_DM_POLICY_EMAIL === 'allowlist',
    prompt: () => 'The addresses allowed to email the assistant (yours first), comma-separated',
    check: async (value) => {
      const addresses = value
        .split(/[\s,;]+/)
        .filter(Boolean)
        .map((address) => address.toLowerCase());
      if (addresses.length === 0) throw new Error('an allow list needs at least one address');
      const bad = addresses.find((address) => !EMAIL_ADDRESS.test(address));
      if (bad !== undefined) throw new Error(`"${bad}" is not an email address`);
      return addresses.join(',');
    },
  },
  {
    key: 'ASSISTANT_OWNER_USER_ID',
    prompt: () => 'The user_id you will use over POST /webhook/agent (linked with your Telegram chat as one user)',
    defaultValue: () => 'owner',
    check: async (value) => {
      const id = value.trim();
      if (!/^[A-Za-z0-9._@-]{1,200}$/.test(id)) throw new Error('letters, digits and . _ @ - only, at most 200');
      return id;
    },
  },
  {
    key: 'ASSISTANT_DOMAIN',
    prompt: () => 'Domain name for HTTPS (empty: a self-signed certificate for the server IP)',
    defaultValue: () => '',
    check: async (value) => {
      const domain = value.trim().toLowerCase().replace(/\.$/, '');
      if (domain !== '' && !HOSTNAME.test(domain))
        throw new Error(`"${value}" is not a domain name like bot.example.com`);
      return domain;
    },
  },
  {
    key: 'ASSISTANT_TIME_ZONE',
    prompt: () => 'Time zone (IANA, e.g. Europe/Berlin)',
    defaultValue: () => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC',
    check: async (value) => {
      try {
        return requireTimeZone(value.trim());
      } catch {
        throw new Error(`"${value}" is not a time zone like Europe/Berlin or America/New_York`);
      }
    },
  },
  {
    key: 'ASSISTANT_NAME',
    prompt: () => "The assistant's name",
    defaultValue: () => 'Assistant',
    check: async (value) => {
      const name = value.trim();
      if (name.length > 100) throw new Error('at most 100 characters');
      return name;
    },
  },
  {
    key: 'ASSISTANT_LOCALE',
    prompt: () => 'Locale that dates and times are read in (BCP 47, e.g. en, de-AT, fr, pt-BR, ja)',
    defaultValue: () => 'en',
    check: async (value) => {
      try {
        return requireLocale(value.trim());
      } catch {
        throw new Error(`"${value}" is not a locale like en, de-AT, pt-BR or ja`);
      }
    },
  },
  {
    key: 'ASSISTANT_LANGUAGE',
    prompt: () =>
      `Language for searching memories (${LANGUAGES.filter((entry) => entry !== 'simple')
        .slice(0, 6)
        .join(', ')}, …; simple: none)`,
    defaultValue: (answers) => textSearchLanguage(answers.ASSISTANT_LOCALE),
    check: async (value) => {
      const language = value.trim().toLowerCase();
      if (!(LANGUAGES as readonly string[]).includes(language)) {
        throw new Error(`"${value}" is not one of ${LANGUAGES.join(', ')}`);
      }
      return language;
    },
  },
  {
    key: 'ASSISTANT_STYLE',
    prompt: () => 'Style, in a sentence (e.g. short and friendly)',
    defaultValue: () => 'concise and friendly',
    check: async (value) => {
      const style = value.trim().replace(/\s+/g, ' ');
      if (style.length > 500) throw new Error('at most 500 characters');
      return style;
    },
  },
  spendingCapQuestion('day', 'Daily'),
  spendingCapQuestion('month', 'Monthly'),
  {
    key: 'N8N_API_KEY',
    prompt: () => 'An n8n API key to use (empty: one is generated at the first start)',
    defaultValue: () => '',
    secret: true,
    check: async (value) => {
      const key = value.trim();
      if (key !== '' && !/^[A-Za-z0-9._-]{16,}$/.test(key))
        throw new Error('an n8n API key has no spaces and 16+ characters');
      return key;
    },
  },
];

/** Where the models are, from the providers (a local runner on this machine), and which are on. */
export function providerSettings(answers: Answers): Answers {
  return { ASSISTANT_LLM_BASE_URL: provider(answers).baseUrl, ...modelSettings(answers) };
}
