// Mode "Pass Through Webhook Request": the webhook item's Bearer key is checked against the inbound key
// credential, the request forwarded to the judge (POST /v1/systemone with the body as is, or GET /v1/models),
// and the judge's reply emitted for Respond to Webhook: the answer on output 0, or {statusCode, body: {detail…}}
// on output 1, so callers get the judge's own status.
import { NodeOperationError, type IExecuteFunctions, type INodeExecutionData, type JsonObject } from 'n8n-workflow';

import { getCachedCredentials } from '../helpers/credentialCache';
import { checkBearerKey, type HttpFailure } from '../helpers/inboundKey';
import { callSystemOne, readSystemOneCredential, type SystemOneEndpoint } from '../helpers/systemOneClient';

export const INBOUND_KEY_CREDENTIAL = 'systemOneInboundKeyApi';

interface WebhookItem {
  headers?: Record<string, unknown>;
  body?: unknown;
}

const NOT_CONFIGURED: HttpFailure = {
  statusCode: 503,
  body: { detail: 'The wrapper has no inbound key configured.' },
};

export async function passThrough(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
  const items = this.getInputData();
  const success: INodeExecutionData[] = [];
  const failure: INodeExecutionData[] = [];
  // Both reads are cached for a moment (each costs n8n a query and a decryption), and made in parallel.
  const [inbound, credential] = await Promise.all([
    getCachedCredentials<{ apiKey?: string }>(this, INBOUND_KEY_CREDENTIAL),
    readSystemOneCredential(this, (type) => getCachedCredentials(this, type)),
  ]);
  const expectedKey = String(inbound.apiKey ?? '');
  const timeout = this.getNodeParameter('requestOptions.timeout', 0, 60000) as number;
  const endpoint = this.getNodeParameter('endpoint', 0, 'systemone') as SystemOneEndpoint;
  if (endpoint !== 'systemone' && endpoint !== 'models') {
    throw new NodeOperationError(this.getNode(), `Endpoint: "${String(endpoint)}" is not "systemone" or "models"`);
  }

  for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
    const pairedItem = { item: itemIndex };
    const webhook = items[itemIndex].json as WebhookItem;
    const refused = expectedKey === '' ? NOT_CONFIGURED : checkBearerKey(webhook.headers?.authorization, expectedKey);
    if (refused) {
      failure.push({ json: refused as unknown as JsonObject, pairedItem });
      continue;
    }
    try {
      const body = endpoint === 'models' ? undefined : (webhook.body ?? null);
      const reply = await callSystemOne(this, credential, endpoint, body, timeout);
      if (reply.statusCode >= 200 && reply.statusCode < 300 && reply.body && typeof reply.body === 'object') {
        success.push({ json: reply.body as JsonObject, pairedItem });
      } else {
        const statusCode = reply.statusCode >= 400 ? reply.statusCode : 502;
        failure.push({ json: { statusCode, body: errorBody(reply.body) }, pairedItem });
      }
    } catch (error) {
      const timedOut = /timeout|timed out/i.test((error as Error).message);
      failure.push({
        json: {
          statusCode: timedOut ? 504 : 502,
          body: { detail: `The judge did not answer: ${(error as Error).message}`, error_type: 'backend_error' },
        },
        pairedItem,
      });
    }
  }
  return [success, failure];
}

/** Keeps the judge's {detail…} envelope; anything else (e.g. a proxy's HTML page) is wrapped in one. */
function errorBody(body: unknown): JsonObject {
  if (body && typeof body === 'object' && !Array.isArray(body) && 'detail' in body) return body as JsonObject;
  return { detail: typeof body === 'string' && body !== '' ? body.slice(0, 500) : 'The judge answered with an error.' };
}
