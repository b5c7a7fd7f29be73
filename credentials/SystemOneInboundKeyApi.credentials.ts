// The key callers must present (Authorization: Bearer <key>) to a workflow that exposes the Judge node
// in pass-through mode, such as the /webhook/v1/systemone wrapper.
import type { ICredentialType, INodeProperties } from 'n8n-workflow';

export class SystemOneInboundKeyApi implements ICredentialType {
  name = 'systemOneInboundKeyApi';

  displayName = 'System One Inbound Key API';

  icon = 'file:../nodes/Judge/judge.svg' as const;

  documentationUrl = 'https://github.com/typesafe-ai/systemone';

  properties: INodeProperties[] = [
    {
      displayName: 'API Key',
      name: 'apiKey',
      type: 'string',
      typeOptions: { password: true },
      default: '',
      required: true,
      description: 'The Bearer key callers of the wrapper must send',
    },
  ];
}
