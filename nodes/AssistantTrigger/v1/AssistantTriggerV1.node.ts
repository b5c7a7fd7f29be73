import type {
  IDataObject,
  INodeType,
  INodeTypeBaseDescription,
  INodeTypeDescription,
  IWebhookFunctions,
  IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { admit, isHttpResult } from './helpers/request';

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
          httpMethod: 'POST',
          responseMode: 'responseNode',
          path: '={{ $parameter["path"] }}',
          isFullPath: true,
        },
      ],
      properties: [
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
    const admitted = admit(
      { headers: request.headers as Record<string, unknown>, body: this.getBodyData() },
      { name: String(credential.name ?? ''), value: String(credential.value ?? '') },
    );
    if (isHttpResult(admitted)) {
      const response = this.getResponseObject();
      response.writeHead(admitted.statusCode, { 'content-type': 'application/json; charset=utf-8' });
      response.end(JSON.stringify(admitted.body));
      return { noWebhookResponse: true };
    }
    return { workflowData: [[{ json: admitted as unknown as IDataObject }]] };
  }
}
