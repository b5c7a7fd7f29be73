// Check Webhook Request: the API key (n8n Header Auth credential) first, then the body. Accepted requests go to
// output 0 as {channel, externalId, message, sessionId, metadata}; rejections to output 1 as {statusCode, body}
// for a Respond to Webhook node.
import type { IExecuteFunctions, INodeExecutionData, INodeProperties, JsonObject } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { checkApiKey, isHttpResult, parseAgentRequest, type HeaderAuthCredential } from 'assistant-core';

/** n8n's own Header Auth credential: the header name and the key callers must send. */
export const HEADER_AUTH_CREDENTIAL = 'httpHeaderAuth';

const properties: INodeProperties[] = [];

const displayOptions = { show: { operation: ['checkWebhookRequest'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
  const credential = await this.getCredentials<HeaderAuthCredential>(HEADER_AUTH_CREDENTIAL);
  const headerAuth = { name: String(credential.name ?? ''), value: String(credential.value ?? '') };
  const accepted: INodeExecutionData[] = [];
  const rejected: INodeExecutionData[] = [];
  this.getInputData().forEach((item, itemIndex) => {
    const pairedItem = { item: itemIndex };
    const webhook = item.json as { headers?: Record<string, unknown>; body?: unknown };
    const refused = checkApiKey(webhook.headers, headerAuth);
    if (refused) return rejected.push({ json: refused as unknown as JsonObject, pairedItem });
    const parsed = parseAgentRequest(webhook.body);
    if (isHttpResult(parsed)) return rejected.push({ json: parsed as unknown as JsonObject, pairedItem });
    accepted.push({ json: parsed as unknown as JsonObject, pairedItem });
  });
  return [accepted, rejected];
}
