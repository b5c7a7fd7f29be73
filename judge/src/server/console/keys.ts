// The console's key and usage routes, over the key store the server authenticates with: what the CLI's
// `keys create | list | revoke | usage` do, as JSON.
import { KeyAccess } from '../../keys/access';
import { generateKey, KEY_ID_PATTERN, KEY_NAME_PATTERN } from '../../keys/format';
import { KeyStoreError, type KeyLimits, type KeyRecord } from '../../keys/types';
import { costOf, usageRange, usageTotal } from '../../keys/usage';
import { ApiError, schemaError } from '../../protocol/errors';

const LIMIT_FIELDS: Record<keyof KeyLimits, { integer: boolean }> = {
  ratePerSecond: { integer: false },
  tokensPerMinute: { integer: true },
  monthlyTokens: { integer: true },
};

const invalid = (field: string, msg: string) => schemaError([{ loc: ['body', field], msg, type: 'value_error' }]);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A key as the console lists it: never its hash. */
export const publicKey = (record: KeyRecord) => ({
  id: record.id,
  name: record.name,
  created_at: record.createdAt,
  revoked_at: record.revokedAt ?? null,
  limits: record.limits,
});

/** `{name, limits?}` checked field by field; each error names its field. */
export function readNewKey(body: unknown): { name: string; limits: KeyLimits } {
  if (!isObject(body)) throw invalid('(root)', 'must be a JSON object with name and limits');
  for (const field of Object.keys(body)) {
    if (field !== 'name' && field !== 'limits') throw invalid(field, 'is not a field of a new key (name, limits)');
  }
  const { name } = body;
  if (typeof name !== 'string' || !KEY_NAME_PATTERN.test(name)) {
    throw invalid('name', '1–100 characters: letters, digits, space and . _ : @ / -, starting with a letter or digit');
  }
  const given = body.limits ?? {};
  if (!isObject(given)) throw invalid('limits', 'must be an object');
  const limits: KeyLimits = {};
  for (const [field, value] of Object.entries(given)) {
    const rule = LIMIT_FIELDS[field as keyof KeyLimits];
    if (!rule) throw invalid(`limits.${field}`, `is not a limit (${Object.keys(LIMIT_FIELDS).join(', ')})`);
    if (value === null) continue;
    if (
      typeof value !== 'number' ||
      !(value > 0) ||
      !Number.isFinite(value) ||
      (rule.integer && !Number.isSafeInteger(value))
    ) {
      throw invalid(`limits.${field}`, `must be ${rule.integer ? 'a whole number' : 'a number'} > 0, or null for none`);
    }
    limits[field as keyof KeyLimits] = value;
  }
  return { name, limits };
}

export async function createKey(access: KeyAccess, body: unknown) {
  const { name, limits } = readNewKey(body);
  const { key, record } = generateKey(name, limits);
  try {
    await access.store.addKey(record);
  } catch (error) {
    if (error instanceof KeyStoreError) throw new ApiError(409, error.message, 'conflict');
    throw error;
  }
  return { key, ...publicKey(record) };
}

export async function revokeKey(access: KeyAccess, id: string, now: Date) {
  if (!KEY_ID_PATTERN.test(id)) throw new ApiError(404, `No key ${JSON.stringify(id)}.`, 'not_found');
  const revoked = await access.store.revokeKey(id, now);
  if (!revoked) throw new ApiError(404, `No key ${id}.`, 'not_found');
  return publicKey(revoked);
}

/** Usage per key and UTC day in [from, to], with costs at the server's price; this server's own usage written first. */
export async function usageOfAllKeys(access: KeyAccess, query: URLSearchParams, now: number) {
  const range = usageRange(query.get('from') ?? undefined, query.get('to') ?? undefined, now);
  if ('problem' in range) throw new ApiError(400, range.problem, 'invalid_request_error');
  await access.flush();
  const rows = await access.store.usage(range);
  const names = new Map((await access.store.listKeys()).map((k) => [k.id, k.name]));
  return {
    ...range,
    price: { currency: access.price.currency, input_per_million: access.price.inputPerMillion },
    rows: rows.map((row) => ({
      date: row.day,
      key_id: row.keyId,
      key_name: names.get(row.keyId) ?? row.keyId,
      requests: row.requests,
      input_tokens: row.inputTokens,
      cost: costOf(access.price, row.inputTokens),
    })),
    total: usageTotal(rows, access.price),
  };
}
