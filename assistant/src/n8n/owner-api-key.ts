// The n8n API key the installation uses (the seed's "workflow tool API key"): made by logging in as the owner and
// creating a key with every scope the owner may have, or an earlier one reused while n8n still accepts it.

async function readJson(response: Response, what: string): Promise<unknown> {
  const text = await response.text();
  if (!response.ok) throw new Error(`${what}: HTTP ${response.status} ${text.slice(0, 500)}`);
  return text ? JSON.parse(text) : undefined;
}

/** Logs in as the owner (n8n's REST login) and creates an API key with every scope the owner may have. */
export async function createOwnerApiKey(n8nUrl: string, owner: { email: string; password: string }): Promise<string> {
  const login = await fetch(`${n8nUrl}/rest/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ emailOrLdapLoginId: owner.email, password: owner.password }),
  });
  await readJson(login, 'POST /rest/login');
  const cookie = (login.headers.getSetCookie?.() ?? [])
    .map((c) => c.split(';')[0])
    .filter((c) => c.startsWith('n8n-auth='))
    .join('; ');
  if (!cookie) throw new Error('POST /rest/login: no n8n-auth cookie in the answer');
  const headers = { cookie, 'content-type': 'application/json' };
  const scopes = (await readJson(
    await fetch(`${n8nUrl}/rest/api-keys/scopes`, { headers }),
    'GET /rest/api-keys/scopes',
  )) as { data: string[] };
  const created = (await readJson(
    await fetch(`${n8nUrl}/rest/api-keys`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ label: `runtime-${Date.now()}`, scopes: scopes.data, expiresAt: null }),
    }),
    'POST /rest/api-keys',
  )) as { data: { rawApiKey: string } };
  return created.data.rawApiKey;
}

/** Whether n8n's public API accepts `apiKey`. */
export async function apiKeyAccepted(n8nUrl: string, apiKey: string | undefined): Promise<boolean> {
  if (!apiKey) return false;
  const response = await fetch(`${n8nUrl}/api/v1/workflows?limit=1`, { headers: { 'X-N8N-API-KEY': apiKey } });
  await response.arrayBuffer();
  return response.ok;
}

/** `given` while n8n accepts it, else a new key made as the owner. */
export async function ownerApiKey(
  n8nUrl: string,
  owner: { email: string; password: string },
  given?: string,
): Promise<string> {
  return (await apiKeyAccepted(n8nUrl, given)) ? given! : await createOwnerApiKey(n8nUrl, owner);
}
