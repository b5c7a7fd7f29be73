// Finds secrets in a workflow's JSON: values that look like keys, tokens, passwords or connection strings with a
// password, literal values under secret-like keys, and credential references holding more than {id, name}.

const SECRET_VALUE_PATTERNS: Array<[string, RegExp]> = [
  ['OpenAI-style key', /\bsk-[A-Za-z0-9_-]{16,}/],
  ['Anthropic key', /\bsk-ant-[A-Za-z0-9_-]{16,}/],
  ['Google API key', /\bAIza[0-9A-Za-z_-]{30,}/],
  ['Telegram bot token', /\b\d{6,12}:[A-Za-z0-9_-]{30,}\b/],
  ['Bearer token', /\bBearer\s+[A-Za-z0-9._~+/-]{12,}/i],
  ['AWS access key', /\bAKIA[0-9A-Z]{16}\b/],
  ['private key', /-----BEGIN [A-Z ]*PRIVATE KEY-----/],
  ['connection string with password', /\b[a-z][a-z0-9+]*:\/\/[^\s:/@]+:[^\s@/]+@/i],
  ['GitHub token', /\bgh[pousr]_[A-Za-z0-9]{30,}/],
];
const SECRET_KEYS =
  /^(api[_-]?key|apikey|access[_-]?token|token|secret|client[_-]?secret|password|passwd|private[_-]?key|authorization|x-api-key|value)$/i;

/** Returns the findings for one parsed workflow: "path: reason". */
export function findSecrets(workflow: unknown): string[] {
  const findings: string[] = [];
  const walk = (value: unknown, where: string, key: string): void => {
    if (typeof value === 'string') {
      for (const [name, pattern] of SECRET_VALUE_PATTERNS)
        if (pattern.test(value)) findings.push(`${where}: looks like a ${name}`);
      const isExpression = value.startsWith('=');
      if (SECRET_KEYS.test(key) && value.trim() !== '' && !isExpression)
        findings.push(`${where}: a literal value under "${key}"`);
      return;
    }
    if (Array.isArray(value)) return value.forEach((item, index) => walk(item, `${where}[${index}]`, key));
    if (value && typeof value === 'object') {
      // A resource locator ({__rl: true, mode, value}) names a workflow or model; its value is an id, not a secret.
      const isLocator = (value as Record<string, unknown>).__rl === true;
      for (const [childKey, child] of Object.entries(value))
        walk(child, `${where}.${childKey}`, isLocator ? '' : childKey);
    }
  };
  walk(workflow, '$', '');
  const nodes = (workflow as { nodes?: Array<{ name: string; credentials?: Record<string, unknown> }> }).nodes ?? [];
  for (const node of nodes) {
    for (const [type, reference] of Object.entries(node.credentials ?? {})) {
      const keys = Object.keys((reference ?? {}) as object).sort();
      if (keys.join(',') !== 'id,name')
        findings.push(`node "${node.name}": credential ${type} must hold only {id, name}, has ${keys.join(', ')}`);
    }
  }
  return findings;
}
