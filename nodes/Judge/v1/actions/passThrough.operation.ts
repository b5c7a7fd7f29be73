// Mode "Pass Through Webhook Request": the webhook item's Bearer key is checked against the inbound key
// credential, the request forwarded to the judge (POST /v1/systemone with the body as is, or GET /v1/models),
// and the webhook call answered from here with the judge's status, body and headers (X-Request-Id,
// x-typesafe-request-id, Server-Timing), through n8n's response channel (what Respond to Webhook uses), so no
// expression is evaluated. The same reply goes out as an item: the answer on output 0, {statusCode, body: {detail…}}
// on output 1.
import type { IExecuteFunctions, INodeExecutionData, INodeProperties, JsonObject } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';
import { DEFAULT_MAX_JSON_DEPTH, tooDeepMessage } from 'systemone-judge/core';

import { errorEnvelope } from '../helpers/errorBody';
import { checkBearerKey, INBOUND_KEY_CREDENTIAL, type HttpFailure } from '../helpers/inboundKey';
import { nestsDeeperThan } from '../helpers/nesting';
import { answerHeaders, requestIdOf } from '../helpers/responseHeaders';
import { getCachedCredentials } from '../transport/credentialCache';
import {
  callSystemOne,
  readSystemOneCredential,
  type SystemOneEndpoint,
} from '../../../shared/transport/systemOneClient';
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

const TOO_DEEP: HttpFailure = {
  statusCode: 400,
  body: { detail: { error_type: 'invalid_request_error', message: tooDeepMessage(DEFAULT_MAX_JSON_DEPTH) } },
};

interface Reply {
  statusCode: number;
  body: JsonObject;
  /** The judge's answer headers, when it answered. */
  judgeHeaders?: Record<string, unknown>;
}

const answerOf = (failure: HttpFailure): Reply => ({
  statusCode: failure.statusCode,
  body: failure.body as unknown as JsonObject,
});

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

  const pass = async (webhook: WebhookItem, requestId: string): Promise<Reply> => {
    const refused = expectedKey === '' ? NOT_CONFIGURED : checkBearerKey(webhook.headers?.authorization, expectedKey);
    if (refused) return answerOf(refused);
    const body = endpoint === 'models' ? undefined : (webhook.body ?? null);
    // n8n has parsed the body already; the judge server refuses this nesting before parsing, and so do we.
    if (endpoint === 'systemone' && nestsDeeperThan(body, DEFAULT_MAX_JSON_DEPTH)) return answerOf(TOO_DEEP);
    try {
      const reply = await callSystemOne(this, credential, endpoint, body, timeout, requestId);
      if (reply.statusCode >= 200 && reply.statusCode < 300 && reply.body && typeof reply.body === 'object') {
        return { statusCode: reply.statusCode, body: reply.body as JsonObject, judgeHeaders: reply.headers };
      }
      const statusCode = reply.statusCode >= 400 ? reply.statusCode : 502;
      return { statusCode, body: errorEnvelope(reply.body, reply.statusCode), judgeHeaders: reply.headers };
    } catch (error) {
      const timedOut = /timeout|timed out/i.test((error as Error).message);
      const detail = `The judge did not answer: ${(error as Error).message}`;
      return { statusCode: timedOut ? 504 : 502, body: { detail: { error_type: 'backend_error', message: detail } } };
    }
  };

  for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
    const started = performance.now();
    const pairedItem = { item: itemIndex };
    const webhook = items[itemIndex].json as WebhookItem;
    const requestId = requestIdOf(webhook.headers);
    const reply = await pass(webhook, requestId);
    if (itemIndex === 0) {
      // The webhook call gets the first item's reply (as Respond to Webhook's "First Incoming Item" would).
      const headers = answerHeaders(reply.judgeHeaders, requestId, performance.now() - started);
      await this.sendResponse({ statusCode: reply.statusCode, body: reply.body, headers });
    }
    if (reply.statusCode >= 200 && reply.statusCode < 300) success.push({ json: reply.body, pairedItem });
    else failure.push({ json: { statusCode: reply.statusCode, body: reply.body }, pairedItem });
  }
  return [success, failure];
}
