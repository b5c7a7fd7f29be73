// The data of n8n's Postgres credential for a postgres:// URL: what the e2e tests and benchmarks write into the
// "Assistant Postgres" credential so the workflows reach the stack's database.
export function postgresCredentialData(url: string): Record<string, unknown> {
  const pg = new URL(url);
  return {
    host: pg.hostname,
    port: Number(pg.port),
    database: pg.pathname.slice(1),
    user: decodeURIComponent(pg.username),
    password: decodeURIComponent(pg.password),
    ssl: 'disable',
    allowUnauthorizedCerts: false,
    maxConnections: 10,
    sshTunnel: false,
  };
}
