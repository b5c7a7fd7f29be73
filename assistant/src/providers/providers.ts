// The AI providers the assistant's chat model can use: a default, five hosted ones and a local runner, all through
// their OpenAI-compatible chat endpoint. One list: the docs' table is rendered from it (a test keeps them equal) and
// the installer asks from it (setup.sh).

export type ProviderKind = 'default' | 'hosted' | 'local';

export interface AiProvider {
  /** What the installer's answer and a catalogue expert's suggested model name it by. */
  id: string;
  name: string;
  kind: ProviderKind;
  /** The OpenAI-compatible base URL (the Chat Model credential's). */
  baseUrl: string;
  /** A model that supports tool calling, as an example (the `chatModel` setting). */
  exampleModel: string;
  /** Whether a key is needed; a local runner takes any non-empty one. */
  keyRequired: boolean;
  /** Where the operator gets a key. */
  keyHint: string;
  /** How the key is checked: the model list, with the provider's own headers. */
  keyCheck: { path: string; headers(key: string): Record<string, string> };
}

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

export const AI_PROVIDERS: readonly AiProvider[] = [
  {
    id: 'openai',
    name: 'OpenAI',
    kind: 'default',
    baseUrl: 'https://api.openai.com/v1',
    exampleModel: 'gpt-4o-mini',
    keyRequired: true,
    keyHint: 'https://platform.openai.com/api-keys',
    keyCheck: { path: 'models', headers: bearer },
  },
  {
    id: 'anthropic',
    name: 'Anthropic',
    kind: 'hosted',
    baseUrl: 'https://api.anthropic.com/v1/',
    exampleModel: 'claude-sonnet-4-5',
    keyRequired: true,
    keyHint: 'https://console.anthropic.com/settings/keys',
    keyCheck: { path: 'models', headers: (key) => ({ 'x-api-key': key, 'anthropic-version': '2023-06-01' }) },
  },
  {
    id: 'gemini',
    name: 'Google Gemini',
    kind: 'hosted',
    baseUrl: 'https://generativelanguage.googleapis.com/v1beta/openai/',
    exampleModel: 'gemini-2.5-flash',
    keyRequired: true,
    keyHint: 'https://aistudio.google.com/apikey',
    keyCheck: { path: 'models', headers: bearer },
  },
  {
    id: 'mistral',
    name: 'Mistral',
    kind: 'hosted',
    baseUrl: 'https://api.mistral.ai/v1',
    exampleModel: 'mistral-large-latest',
    keyRequired: true,
    keyHint: 'https://console.mistral.ai/api-keys',
    keyCheck: { path: 'models', headers: bearer },
  },
  {
    id: 'deepseek',
    name: 'DeepSeek',
    kind: 'hosted',
    baseUrl: 'https://api.deepseek.com/v1',
    exampleModel: 'deepseek-chat',
    keyRequired: true,
    keyHint: 'https://platform.deepseek.com/api_keys',
    keyCheck: { path: 'models', headers: bearer },
  },
  {
    id: 'openrouter',
    name: 'OpenRouter',
    kind: 'hosted',
    baseUrl: 'https://openrouter.ai/api/v1',
    exampleModel: 'openai/gpt-4o-mini',
    keyRequired: true,
    keyHint: 'https://openrouter.ai/keys',
    keyCheck: { path: 'models', headers: bearer },
  },
  {
    id: 'ollama',
    name: 'Ollama (local)',
    kind: 'local',
    baseUrl: 'http://127.0.0.1:11434/v1',
    exampleModel: 'llama3.1',
    keyRequired: false,
    keyHint: 'any non-empty key (Ollama ignores it)',
    keyCheck: { path: 'models', headers: bearer },
  },
];

export const PROVIDER_IDS = AI_PROVIDERS.map((provider) => provider.id);

export function providerById(id: string): AiProvider | undefined {
  return AI_PROVIDERS.find((provider) => provider.id === id.trim().toLowerCase());
}

/** The docs' table of providers (docs/ASSISTANT.md, "AI providers"). */
export function providersTable(): string {
  const rows = AI_PROVIDERS.map((provider) => [
    provider.kind === 'default' ? `${provider.name} (default)` : provider.name,
    provider.keyRequired ? `\`${provider.baseUrl}\`` : `\`${provider.baseUrl}\` (any non-empty key)`,
    `\`${provider.exampleModel}\``,
  ]);
  const all = [['provider', 'base URL', 'model example'], ...rows];
  const widths = [0, 1, 2].map((column) => Math.max(...all.map((row) => row[column].length)));
  const line = (cells: string[]) => `| ${cells.map((cell, i) => cell.padEnd(widths[i])).join(' | ')} |`;
  return [line(all[0]), `| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`, ...rows.map(line)].join('\n');
}
