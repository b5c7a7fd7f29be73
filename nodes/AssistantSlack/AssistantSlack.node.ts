// Assistant Slack: who may talk on Slack (checked before anything is stored), a message sent where the user wrote
// (chat.postMessage, mrkdwn escaped, in parts), and a turn followed until its reply (or question, with buttons) is
// posted there. The Slack app's tokens come from the Assistant Slack App credential, never from the workflow.
import { VersionedNodeType, type INodeTypeBaseDescription, type IVersionedNodeType } from 'n8n-workflow';

import { AssistantSlackV1 } from './v1/AssistantSlackV1.node';

export class AssistantSlack extends VersionedNodeType {
  constructor() {
    const baseDescription: INodeTypeBaseDescription = {
      displayName: 'Assistant Slack',
      name: 'assistantSlack',
      icon: 'file:assistantSlack.svg',
      group: ['transform'],
      defaultVersion: 1,
      subtitle: '={{ $parameter["operation"] }}',
      description: "The assistant on Slack: check the sender, send a message, post a turn's reply or question",
    };
    const nodeVersions: IVersionedNodeType['nodeVersions'] = { 1: new AssistantSlackV1(baseDescription) };
    super(nodeVersions, baseDescription);
  }
}
