// The web tools of this n8n process, built from its environment (ASSISTANT_SEARCH_BACKEND, ASSISTANT_OUTBOUND_ALLOW,
// ASSISTANT_BROWSER_URL, … : docs/WEB.md) and kept while those variables stay the same, so the page cache and the
// browser client live across executions.
import { webSettingsFromEnv, createWebTools, type WebTools } from 'assistant-core/web';

let cached: { fingerprint: string; tools: WebTools } | undefined;

/** The variables the web tools read; a change to any of them builds the tools anew. */
const VARIABLES =
  /^(ASSISTANT_(SEARCH|SEARXNG|DUCKDUCKGO|READ|BROWSER|OUTBOUND|JUDGE)_|N8N_PORT$|N8N_HOST$|SYSTEMONE_JUDGE_URL$)/;

export function webTools(env: NodeJS.ProcessEnv = process.env): WebTools {
  const fingerprint = Object.keys(env)
    .filter((name) => VARIABLES.test(name))
    .sort()
    .map((name) => `${name}=${env[name]}`)
    .join('\n');
  if (cached?.fingerprint !== fingerprint) {
    cached = { fingerprint, tools: createWebTools(webSettingsFromEnv(env)) };
  }
  return cached.tools;
}
