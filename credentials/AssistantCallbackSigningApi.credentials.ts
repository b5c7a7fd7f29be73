// The secret proactive-message callbacks are signed with: each POST to a webhook user's callback_url carries
// `X-Signature: sha256=<hex HMAC-SHA256 of the body>` under it. The runtime generates it (ASSISTANT_CALLBACK_SECRET
// in the env file the operator can read); give the same value to the receiving client.
import type { ICredentialType, INodeProperties } from 'n8n-workflow';

export class AssistantCallbackSigningApi implements ICredentialType {
  name = 'assistantCallbackSigningApi';

  displayName = 'Assistant Callback Signing API';

  icon = 'file:../nodes/AssistantOutbox/assistantOutbox.svg' as const;

  documentationUrl = 'https://github.com/typesafe-ai/systemone/blob/main/docs/SCHEDULING.md';

  properties: INodeProperties[] = [
    {
      displayName: 'Signing Secret',
      name: 'secret',
      type: 'string',
      typeOptions: { password: true },
      default: '',
      required: true,
      description: 'At least 16 characters; the receiving client verifies X-Signature with it',
    },
  ];
}
