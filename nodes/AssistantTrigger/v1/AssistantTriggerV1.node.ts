import type {
  IDataObject,
  INodeType,
  INodeTypeBaseDescription,
  INodeTypeDescription,
  IWebhookFunctions,
  IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { createOutboundGuard, outboundAllowList, protectedEndpointsFromEnv } from 'assistant-core';

import { admit, admitOutbox, admitReceipts, admitTurn, isHttpResult, refusedCallbackUrl } from './helpers/request';

/** n8n's own Header Auth credential: the header name and the key callers must send. */
export const HEADER_AUTH_CREDENTIAL = 'httpHeaderAuth';

export class AssistantTriggerV1 implements INodeType {
  description: INodeTypeDescription;

  constructor(baseDescription: INodeTypeBaseDescription) {
    this.description = {
      ...baseDescription,
      version: 1,
      defaults: { name: 'Assistant Trigger' },
      inputs: [],
      outputs: [NodeConnectionTypes.Main],
      credentials: [{ name: HEADER_AUTH_CREDENTIAL, required: true }],
      webhooks: [
        {
          name: 'default',
          httpMethod: '={{ ["message", "receipts"].includes($parameter["endpoint"]) ? "POST" : "GET" }}',
          responseMode: 'responseNode',
          path: '={{ $parameter["path"] }}',
          isFullPath: true,
        },
      ],
      properties: [
        {
          displayName: 'Endpoint',
          name: 'endpoint',
          type: 'options',
          options: [
            {
              name: 'Messages (POST)',
              value: 'message',
              description: 'POST {message, user_id, session_id?, metadata?, reply_to?, callback_url?}',
            },
            {
              name: 'Outbox (GET)',
              value: 'outbox',
              description: "GET ?user_id=…&after=…&limit=…: the user's proactive messages, for clients that pull",
            },
            {
              name: 'Receipts (POST)',
              value: 'receipts',
              description: 'POST {user_id, channel: "web", shown: [IDs]}: a client that pulls showed these messages',
            },
            {
              name: 'Turn State (GET)',
              value: 'turn',
              description: 'GET ?user_id=…&turn_id=…: a turn and its reply, e.g. after a 504 reply_pending',
            },
          ],
          default: 'message',
        },
        {
          displayName: 'Path',
          name: 'path',
          type: 'string',
          required: true,
          default: 'agent',
          description: 'The URL path after /webhook/ that callers POST to',
        },
        {
          displayName:
            'Answer the accepted call with a Respond to Webhook node. Refused calls (key, size, body) are answered ' +
            'here in the assistant’s JSON envelope, before any execution.',
          name: 'notice',
          type: 'notice',
          default: '',
        },
      ],
    };
  }

  async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
    const request = this.getRequestObject();
    const credential = await this.getCredentials<{ name?: string; value?: string }>(HEADER_AUTH_CREDENTIAL);
    const key = { name: String(credential.name ?? ''), value: String(credential.value ?? '') };
    const headers = request.headers as Record<string, unknown>;
    const refuse = (result: { statusCode: number; body: unknown }): IWebhookResponseData => {
      const response = this.getResponseObject();
      response.writeHead(result.statusCode, { 'content-type': 'application/json; charset=utf-8' });
      response.end(JSON.stringify(result.body));
      return { noWebhookResponse: true };
    };
    const endpoint = this.getNodeParameter('endpoint', 'message');
    if (endpoint === 'outbox' || endpoint === 'turn') {
      const query = endpoint === 'outbox' ? admitOutbox : admitTurn;
      const admittedQuery = query({ headers, query: request.query }, key);
      if (isHttpResult(admittedQuery)) return refuse(admittedQuery);
      return { workflowData: [[{ json: admittedQuery as unknown as IDataObject }]] };
    }
    if (endpoint === 'receipts') {
      const receipt = admitReceipts({ headers, body: this.getBodyData() }, key);
      if ('statusCode' in receipt) return refuse(receipt);
      return { workflowData: [[{ json: receipt as unknown as IDataObject }]] };
    }
    const admitted = admit({ headers, body: this.getBodyData() }, key);
    if (isHttpResult(admitted)) return refuse(admitted);
    const guard = createOutboundGuard({
      allow: outboundAllowList(process.env),
      protect: protectedEndpointsFromEnv(process.env),
    });
    const refused = await refusedCallbackUrl(admitted.callbackUrl, (url) => guard.check(url));
    if (refused) return refuse(refused);
    return { workflowData: [[{ json: admitted as unknown as IDataObject }]] };
  }
}
