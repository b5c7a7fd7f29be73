// systemone-judge keys create | list | revoke | usage: API keys in the configured store (a JSON file or Postgres).
import { parseArgs } from 'node:util';
import { ConfigError } from '../../config';
import { loadKeysSettings, type KeysSettings, type Price } from '../../keys/config';
import { generateKey, KEY_ID_PATTERN, KEY_NAME_PATTERN } from '../../keys/format';
import { openKeyStore } from '../../keys/store';
import type { KeyLimits, KeyRecord, KeyStore, UsageRow } from '../../keys/types';
import { usageDay, usageRange, usageTotal } from '../../keys/usage';
import { UsageError, type Command } from '../command';

const STORE_FLAGS = '[--config judge.json] [--keys-file keys.json | --database-url postgres://…]';
const USAGE = [
  'keys <subcommand> [flags]',
  `  keys create --name <name> [--rate <R>/s] [--tokens-per-minute <T>] [--monthly-tokens <M>] [--json] ${STORE_FLAGS}`,
  `  keys list [--json] ${STORE_FLAGS}`,
  `  keys revoke <id | name> ${STORE_FLAGS}`,
  `  keys usage [--key <id | name>] [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--json] ${STORE_FLAGS}`,
  'The store: --keys-file / --database-url, else JUDGE_KEYS_FILE / JUDGE_KEYS_DATABASE_URL, else keys.file /',
  'keys.databaseUrl in --config. A new key is printed once, on stdout; only its SHA-256 is stored.',
].join('\n');

const storeOptions = {
  config: { type: 'string' },
  'keys-file': { type: 'string' },
  'database-url': { type: 'string' },
} as const;

type StoreFlags = { config?: string; 'keys-file'?: string; 'database-url'?: string };

function settingsFrom(flags: StoreFlags): { keys: KeysSettings; price: Price } {
  if (flags['keys-file'] !== undefined && flags['database-url'] !== undefined) {
    throw new UsageError('give --keys-file or --database-url, not both');
  }
  const env = { ...process.env };
  if (flags['keys-file'] !== undefined || flags['database-url'] !== undefined) {
    delete env.JUDGE_KEYS_FILE;
    delete env.JUDGE_KEYS_DATABASE_URL;
  }
  if (flags['keys-file'] !== undefined) {
    if (flags['keys-file'] === '') throw new UsageError('--keys-file needs a path');
    env.JUDGE_KEYS_FILE = flags['keys-file'];
  }
  if (flags['database-url'] !== undefined) {
    if (flags['database-url'] === '') throw new UsageError('--database-url needs a postgres:// URL');
    env.JUDGE_KEYS_DATABASE_URL = flags['database-url'];
  }
  const flagName: Record<string, string> = {
    JUDGE_KEYS_FILE: flags['keys-file'] !== undefined ? '--keys-file' : 'JUDGE_KEYS_FILE',
    JUDGE_KEYS_DATABASE_URL: flags['database-url'] !== undefined ? '--database-url' : 'JUDGE_KEYS_DATABASE_URL',
  };
  return loadKeysSettings({ file: flags.config, env }, (field, reason) =>
    flagName[field]?.startsWith('--')
      ? new UsageError(`${flagName[field]}: ${reason}`)
      : new ConfigError(field, reason),
  );
}

async function withStore<T>(flags: StoreFlags, use: (store: KeyStore, price: Price) => Promise<T>): Promise<T> {
  const { keys, price } = settingsFrom(flags);
  if (!keys.store) {
    throw new UsageError(
      'no key store: give --keys-file or --database-url, or set JUDGE_KEYS_FILE / JUDGE_KEYS_DATABASE_URL ' +
        '(or keys.file / keys.databaseUrl in --config)',
    );
  }
  const store = await openKeyStore(keys.store);
  try {
    return await use(store, price);
  } finally {
    await store.close();
  }
}

/** `5`, `5/s`, `0.5/s`, `120/min`, `3600/h` → requests per second. */
export function parseRate(text: string): number {
  const match = /^(\d+(?:\.\d+)?|\.\d+)\s*(?:\/\s*(s|sec|m|min|h|hour))?$/.exec(text.trim());
  const per = { s: 1, sec: 1, m: 60, min: 60, h: 3600, hour: 3600 }[match?.[2] ?? 's'] ?? 1;
  const rate = match ? Number(match[1]) / per : NaN;
  if (!(rate > 0) || !Number.isFinite(rate)) {
    throw new UsageError(
      `--rate must be a number of requests > 0, like 5/s, 0.5/s or 120/min; got ${JSON.stringify(text)}`,
    );
  }
  return rate;
}

export function parseCount(text: string, flag: string): number {
  const digits = text.trim().replace(/_/g, '');
  const n = /^\d+$/.test(digits) ? Number(digits) : NaN;
  if (!Number.isSafeInteger(n) || n < 1) {
    throw new UsageError(`${flag} must be a whole number of tokens ≥ 1, like 100000; got ${JSON.stringify(text)}`);
  }
  return n;
}

function describeLimits(limits: KeyLimits): string {
  const parts = [
    limits.ratePerSecond !== undefined ? `${limits.ratePerSecond} requests/s` : '',
    limits.tokensPerMinute !== undefined ? `${limits.tokensPerMinute} input tokens/min` : '',
    limits.monthlyTokens !== undefined ? `${limits.monthlyTokens} input tokens/month` : '',
  ].filter(Boolean);
  return parts.length > 0 ? parts.join(', ') : 'no limits';
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  return (
    [header, ...rows]
      .map((r) =>
        r
          .map((cell, i) => cell.padEnd(widths[i]))
          .join('  ')
          .trimEnd(),
      )
      .join('\n') + '\n'
  );
}

const print = (text: string) => process.stdout.write(text);
const json = (value: unknown) => print(JSON.stringify(value, null, 2) + '\n');

/** A key named on the command line: its exact id, else the active key with that name. */
function findKey(keys: KeyRecord[], idOrName: string): KeyRecord | undefined {
  return (
    (KEY_ID_PATTERN.test(idOrName) ? keys.find((k) => k.id === idOrName) : undefined) ??
    keys.find((k) => k.name === idOrName && !k.revokedAt)
  );
}

async function create(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      ...storeOptions,
      name: { type: 'string' },
      rate: { type: 'string' },
      'tokens-per-minute': { type: 'string' },
      'monthly-tokens': { type: 'string' },
      json: { type: 'boolean' },
    },
    strict: true,
  });
  if (values.name === undefined) throw new UsageError('--name is required');
  if (!KEY_NAME_PATTERN.test(values.name)) {
    throw new UsageError(
      '--name must be 1–100 characters (letters, digits, space and . _ : @ / -), starting with a letter or digit; ' +
        `got ${JSON.stringify(values.name)}`,
    );
  }
  const limits: KeyLimits = {};
  if (values.rate !== undefined) limits.ratePerSecond = parseRate(values.rate);
  if (values['tokens-per-minute'] !== undefined) {
    limits.tokensPerMinute = parseCount(values['tokens-per-minute'], '--tokens-per-minute');
  }
  if (values['monthly-tokens'] !== undefined) {
    limits.monthlyTokens = parseCount(values['monthly-tokens'], '--monthly-tokens');
  }
  const { key, record } = generateKey(values.name, limits);
  await withStore(values, (store) => store.addKey(record));
  if (values.json) json({ key, id: record.id, name: record.name, created_at: record.createdAt, limits });
  else {
    print(key + '\n');
    process.stderr.write(
      `systemone-judge keys: created key ${record.id} ${JSON.stringify(record.name)} (${describeLimits(limits)}). ` +
        'The key above is shown only this once; store it now.\n',
    );
  }
  return 0;
}

async function list(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { ...storeOptions, json: { type: 'boolean' } }, strict: true });
  const keys = await withStore(values, (store) => store.listKeys());
  if (values.json) {
    json(
      keys.map((k) => ({
        id: k.id,
        name: k.name,
        created_at: k.createdAt,
        revoked_at: k.revokedAt ?? null,
        limits: k.limits,
      })),
    );
    return 0;
  }
  if (keys.length === 0) {
    process.stderr.write('systemone-judge keys: no keys yet (keys create --name <name>)\n');
    return 0;
  }
  const rows = keys.map((k) => [
    k.id,
    k.name,
    k.createdAt.slice(0, 19) + 'Z',
    k.revokedAt ? `revoked ${k.revokedAt.slice(0, 10)}` : 'active',
    describeLimits(k.limits),
  ]);
  print(table(['ID', 'NAME', 'CREATED', 'STATUS', 'LIMITS'], rows));
  return 0;
}

async function revoke(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: storeOptions,
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length !== 1) throw new UsageError('name the key to revoke: keys revoke <id | name>');
  const target = positionals[0];
  return withStore(values, async (store) => {
    const key = findKey(await store.listKeys(), target);
    if (!key) {
      process.stderr.write(`systemone-judge keys: no key has the id or active name ${JSON.stringify(target)}\n`);
      return 1;
    }
    if (key.revokedAt) {
      process.stderr.write(
        `systemone-judge keys: key ${key.id} ${JSON.stringify(key.name)} was revoked at ${key.revokedAt}\n`,
      );
      return 0;
    }
    const revoked = await store.revokeKey(key.id, new Date());
    process.stderr.write(
      `systemone-judge keys: revoked key ${key.id} ${JSON.stringify(key.name)} at ${revoked?.revokedAt}\n`,
    );
    return 0;
  });
}

async function usage(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      ...storeOptions,
      key: { type: 'string' },
      from: { type: 'string' },
      to: { type: 'string' },
      json: { type: 'boolean' },
    },
    strict: true,
  });
  const range = usageRange(values.from, values.to, Date.now(), { from: '--from', to: '--to' });
  if ('problem' in range) throw new UsageError(range.problem);
  return withStore(values, async (store, price) => {
    const keys = await store.listKeys();
    let keyId: string | undefined;
    if (values.key !== undefined) {
      keyId = findKey(keys, values.key)?.id ?? (values.key.startsWith('env-') ? values.key : undefined);
      if (keyId === undefined)
        throw new UsageError(`--key: no key has the id or active name ${JSON.stringify(values.key)}`);
    }
    const rows = await store.usage({ keyId, ...range });
    const nameOf = (id: string) => keys.find((k) => k.id === id)?.name ?? (id.startsWith('env-') ? '(env key)' : '?');
    const byKey = new Map<string, UsageRow[]>();
    for (const row of rows) byKey.set(row.keyId, [...(byKey.get(row.keyId) ?? []), row]);
    if (values.json) {
      json({
        ...range,
        price: {
          currency: price.currency,
          input_per_million: price.inputPerMillion,
          output_per_million: price.outputPerMillion,
        },
        keys: [...byKey].map(([id, keyRows]) => ({
          id,
          name: nameOf(id),
          days: keyRows.map((r) => usageDay(r, price)),
          total: usageTotal(keyRows, price),
        })),
        total: usageTotal(rows, price),
      });
      return 0;
    }
    const money = (cost: number) => `${cost.toFixed(6)} ${price.currency}`;
    const lines = rows.map((r) => {
      const day = usageDay(r, price);
      return [r.day, r.keyId, nameOf(r.keyId), String(day.requests), String(day.input_tokens), money(day.cost)];
    });
    for (const [id, keyRows] of byKey) {
      const t = usageTotal(keyRows, price);
      lines.push(['total', id, nameOf(id), String(t.requests), String(t.input_tokens), money(t.cost)]);
    }
    const all = usageTotal(rows, price);
    lines.push(['total', 'all keys', '', String(all.requests), String(all.input_tokens), money(all.cost)]);
    print(
      `usage ${range.from} .. ${range.to} (UTC), ${price.inputPerMillion} ${price.currency} per million input tokens\n`,
    );
    print(table(['DAY', 'KEY', 'NAME', 'REQUESTS', 'INPUT TOKENS', 'COST'], lines));
    return 0;
  });
}

const SUBCOMMANDS: Record<string, (argv: string[]) => Promise<number>> = { create, list, revoke, usage };

export const keys: Command = {
  name: 'keys',
  summary: 'create, list, revoke API keys and show their usage (a key file or Postgres)',
  usage: USAGE,
  async run(argv) {
    const [sub, ...rest] = argv;
    if (sub === undefined) throw new UsageError('name a subcommand: create, list, revoke or usage');
    const run = Object.hasOwn(SUBCOMMANDS, sub) ? SUBCOMMANDS[sub] : undefined;
    if (!run) throw new UsageError(`unknown subcommand ${JSON.stringify(sub)} (create, list, revoke or usage)`);
    return run(rest);
  },
};
