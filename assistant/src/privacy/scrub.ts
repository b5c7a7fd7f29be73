// Removes what looks like a secret from a text before it is stored or shown (errors echo URLs and headers): bot
// tokens in Telegram API paths, bearer tokens, API-key-like strings, passwords in connection strings.
const PATTERNS: Array<[RegExp, string]> = [
  [/\/bot\d{5,12}:[A-Za-z0-9_-]{20,}/g, '/bot[redacted]'],
  [/\b\d{6,12}:[A-Za-z0-9_-]{30,}\b/g, '[redacted bot token]'],
  [/\bBearer\s+[A-Za-z0-9._~+/=-]{8,}/gi, 'Bearer [redacted]'],
  [/\b(sk|pk|rk)-[A-Za-z0-9_-]{12,}/g, '$1-[redacted]'],
  [/\b((?:x-)?api[-_]?key|token|secret|password)(["']?\s*[:=]\s*["']?)[^\s"',;&]{6,}/gi, '$1$2[redacted]'],
  [/(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:)[^\s@/]+@/gi, '$1[redacted]@'],
];

export function scrubSecrets(text: string): string {
  return PATTERNS.reduce((scrubbed, [pattern, replacement]) => scrubbed.replace(pattern, replacement), text);
}
