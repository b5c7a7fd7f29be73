// The Slack app the assistant talks through (docs/ASSISTANT.md, "Slack"): its bot token (chat.postMessage), its
// app-level token (Socket Mode's WebSocket: no public URL needed), its signing secret (the Events API's requests),
// and the owner's Slack user id (the only one it answers until the owner lets others in). Kept in n8n's encrypted
// credential store, never in a workflow.
import type { ICredentialTestRequest, ICredentialType, INodeProperties } from 'n8n-workflow';

export class AssistantSlackAppApi implements ICredentialType {
  name = 'assistantSlackAppApi';

  displayName = 'Assistant Slack App API';

  icon = 'file:../nodes/AssistantSlack/assistantSlack.svg' as const;

  documentationUrl = 'https://docs.slack.dev/apis/events-api/using-socket-mode';

  properties: INodeProperties[] = [
    {
      displayName: 'Bot Token',
      name: 'botToken',
      type: 'string',
      typeOptions: { password: true },
      default: '',
      placeholder: 'xoxb-…',
      description: 'OAuth & Permissions → Bot User OAuth Token (scopes chat:write, im:history, app_mentions:read)',
    },
    {
      displayName: 'App-Level Token',
      name: 'appToken',
      type: 'string',
      typeOptions: { password: true },
      default: '',
      placeholder: 'xapp-…',
      description: 'Basic Information → App-Level Tokens, with connections:write: Socket Mode connects with it',
    },
    {
      displayName: 'Signing Secret',
      name: 'signingSecret',
      type: 'string',
      typeOptions: { password: true },
      default: '',
      description: "Basic Information → Signing Secret: checks the Events API's requests (not needed for Socket Mode)",
    },
    {
      displayName: 'Owner Slack User ID',
      name: 'ownerUserId',
      type: 'string',
      default: '',
      placeholder: 'U012AB3CD',
      description: "The owner's member ID (profile → ⋯ → Copy member ID); anyone else is refused",
    },
    {
      displayName: 'Web API URL',
      name: 'apiUrl',
      type: 'string',
      default: 'https://slack.com/api',
      description: "Slack's Web API root; change only for a proxy or a test server",
    },
  ];

  test: ICredentialTestRequest = {
    request: {
      baseURL: '={{ $credentials.apiUrl }}',
      url: '/auth.test',
      method: 'POST',
      headers: { Authorization: '=Bearer {{ $credentials.botToken }}' },
    },
    rules: [
      {
        type: 'responseSuccessBody',
        properties: { key: 'ok', value: false, message: 'Slack refused the bot token (auth.test answered ok: false)' },
      },
    ],
  };
}
