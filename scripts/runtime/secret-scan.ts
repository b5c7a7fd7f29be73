// Looks for secrets at rest in a database: every row of every user table, as text, searched for each secret's
// exact value. Used when an e2e stack shuts down (n8n's database: execution data, settings, the assistant's tables).
import { Client } from 'pg';

export interface SecretFinding {
  secret: string;
  table: string;
  rows: number;
}

const quote = (identifier: string) => `"${identifier.replace(/"/g, '""')}"`;

/** Every (secret name, table) where a row contains the secret's value. Names, never values, are reported. */
export async function scanDatabaseForSecrets(url: string, secrets: Record<string, string>): Promise<SecretFinding[]> {
  const wanted = Object.entries(secrets).filter(([, value]) => value.length >= 8);
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const tables = await client.query<{ schema: string; name: string }>(
      `SELECT table_schema AS schema, table_name AS name FROM information_schema.tables
        WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')`,
    );
    const findings: SecretFinding[] = [];
    for (const table of tables.rows) {
      const qualified = `${quote(table.schema)}.${quote(table.name)}`;
      for (const [name, value] of wanted) {
        // Identifiers come from the catalog and are quoted; the value is a parameter.
        const result = await client.query<{ count: string }>(
          `SELECT count(*) FROM ${qualified} AS t WHERE strpos(t::text, $1) > 0`,
          [value],
        );
        const rows = Number(result.rows[0].count);
        if (rows > 0) findings.push({ secret: name, table: qualified, rows });
      }
    }
    return findings;
  } finally {
    await client.end();
  }
}

/**
 * Proves the scan can find a secret (one planted in a scratch table), then scans for the real ones. Throws naming
 * every finding, or when the planted one was missed.
 */
export async function assertNoSecretsAtRest(url: string, secrets: Record<string, string>): Promise<void> {
  const planted = `planted-secret-${Math.random().toString(36).slice(2)}-${Date.now()}`;
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('CREATE TABLE IF NOT EXISTS public.secret_scan_probe (note text)');
    await client.query('INSERT INTO public.secret_scan_probe (note) VALUES ($1)', [`a key: ${planted} in a note`]);
  } finally {
    await client.end();
  }
  const probe = await scanDatabaseForSecrets(url, { planted });
  const cleanup = new Client({ connectionString: url });
  await cleanup.connect();
  await cleanup.query('DROP TABLE public.secret_scan_probe').finally(() => cleanup.end());
  if (!probe.some((finding) => finding.table === '"public"."secret_scan_probe"')) {
    throw new Error('secret scan: the planted secret was not found, so the scan cannot be trusted');
  }
  const findings = await scanDatabaseForSecrets(url, secrets);
  if (findings.length > 0) {
    const list = findings.map((f) => `${f.secret} in ${f.table} (${f.rows} row${f.rows === 1 ? '' : 's'})`);
    throw new Error(`secrets at rest in the n8n database: ${list.join('; ')}`);
  }
}
