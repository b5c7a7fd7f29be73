// Mode "Pass Through Webhook Request": the webhook item's Bearer key is checked against the inbound key
// credential, the request forwarded to the judge (POST /v1/systemone with the body as is, or GET /v1/models),
// and the judge's reply emitted for Respond to Webhook: the answer on output 0, or {statusCode, body: {detail…}}
// on output 1, so callers get the judge's own status.
import type { IExecuteFunctions, INodeExecutionData, INodeProperties, JsonObject } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { errorEnvelope } from '../helpers/errorBody';
import { checkBearerKey, INBOUND_KEY_CREDENTIAL, type HttpFailure } from '../helpers/inboundKey';
import { getCachedCredentials } from '../transport/credentialCache';
import { callSystemOne, readSystemOneCredential, type SystemOneEndpoint } from '../transport/systemOneClient';
import { requestOptions } from './common.descriptions';

const properties: INodeProperties[] = [
  {
    displayName: 'Endpoint',
    name: 'endpoint',
    type: 'options',
    noDataExpression: true,
    options: [
      {
        name: 'Judgement',
        value: 'systemone',
        description: 'POST /v1/systemone: forward the request body and answer with the judgement',
      },
      { name: 'Model List', value: 'models', description: "GET /v1/models: answer with the judge's model list" },
    ],
    default: 'systemone',
    description: 'Which System One endpoint of the judge this webhook stands for',
  },
  requestOptions,
];

const displayOptions = { show: { mode: ['passThrough'] } };

export const description = updateDisplayOptions(displayOptions, properties);

interface WebhookItem {
  headers?: Record<string, unknown>;
  body?: unknown;
}

const NOT_CONFIGURED: HttpFailure = {
  statusCode: 503,
  body: { detail: { error_type: 'not_configured', message: 'The wrapper has no inbound key configured.' } },
};

export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
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
    const authorization = webhook.headers?.authorization;
    const refused = expectedKey === '' ? NOT_CONFIGURED : checkBearerKey(authorization, expectedKey);
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
        failure.push({ json: { statusCode, body: errorEnvelope(reply.body) }, pairedItem });
      }
    } catch (error) {
      const timedOut = /timeout|timed out/i.test((error as Error).message);
      const detail = `The judge did not answer: ${(error as Error).message}`;
      failure.push({
        json: { statusCode: timedOut ? 504 : 502, body: { detail: { error_type: 'backend_error', message: detail } } },
        pairedItem,
      });
    }
  }
  return [success, failure];
}
