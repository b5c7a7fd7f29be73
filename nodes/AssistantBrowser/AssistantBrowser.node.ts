// Assistant Browser: the agent's hands in a real browser (one task per user, its logins kept across restarts) and
// the one-time-code hand-off, on the browser service (docs/BROWSER.md).
import { VersionedNodeType, type INodeTypeBaseDescription, type IVersionedNodeType } from 'n8n-workflow';

import { AssistantBrowserV1 } from './v1/AssistantBrowserV1.node';

export class AssistantBrowser extends VersionedNodeType {
  constructor() {
    const baseDescription: INodeTypeBaseDescription = {
      displayName: 'Assistant Browser',
      name: 'assistantBrowser',
      icon: 'file:assistantBrowser.svg',
      group: ['transform'],
      defaultVersion: 1,
      subtitle: '={{ $parameter["operation"] }}',
      description: 'Open, read and fill in web pages for the assistant, signing in with stored logins',
    };
    const nodeVersions: IVersionedNodeType['nodeVersions'] = { 1: new AssistantBrowserV1(baseDescription) };
    super(nodeVersions, baseDescription);
  }
}
