// The Assistant Embeddings credential switched on or off through n8n's public API (the e2e run keeps it off).
/** The Assistant Embeddings credential at the gateway's embeddings route (on) or with no base URL (off). */
export async function setEmbeddingsCredential(
  stack: { n8nUrl: string; apiKey: string; gateway?: { url: string; key: string } },
  on: boolean,
): Promise<void> {
  const response = await fetch(`${stack.n8nUrl}/api/v1/credentials/asstEmbeddings01`, {
    method: 'PATCH',
    headers: { 'content-type': 'application/json', 'X-N8N-API-KEY': stack.apiKey },
    body: JSON.stringify({
      data: {
        baseUrl: on ? `${stack.gateway!.url}/embeddings/v1` : '',
        apiKey: stack.gateway!.key,
        model: 'text-embedding-3-small',
        dimensions: 0,
      },
    }),
  });
  if (!response.ok) throw new Error(`PATCH the embeddings credential: ${response.status} ${await response.text()}`);
}
