// The site logins the assistant's browser may type (docs/BROWSER.md): a JSON list of
// {"name", "site", "username", "password"}. The model names a login; it never sees the values, and the browser
// service types them only on a page of the login's own site.
import type { ICredentialType, INodeProperties } from 'n8n-workflow';

export class AssistantSiteLoginsApi implements ICredentialType {
  name = 'assistantSiteLoginsApi';

  displayName = 'Assistant Site Logins API';

  icon = 'file:../nodes/AssistantBrowser/assistantBrowser.svg' as const;

  documentationUrl = 'https://github.com/typesafe-ai/systemone/blob/main/docs/BROWSER.md';

  properties: INodeProperties[] = [
    {
      displayName: 'Logins',
      name: 'logins',
      type: 'string',
      typeOptions: { password: true },
      default: '',
      required: true,
      placeholder: '[{"name": "shop", "site": "https://shop.example", "username": "me", "password": "…"}]',
      description:
        'A JSON list; each login has a name (what the assistant calls it), the site it may be typed into, a username and a password',
    },
  ];
}
