// Assistant Turns: a turn's life. The user's message is stored the moment it arrives, before any model runs (or
// matched to a question the assistant is waiting on); the run stores the reply or marks the turn failed; the webhook
// entry waits for the reply up to its deadline.
import { VersionedNodeType, type INodeTypeBaseDescription, type IVersionedNodeType } from 'n8n-workflow';

import { AssistantTurnsV1 } from './v1/AssistantTurnsV1.node';

export class AssistantTurns extends VersionedNodeType {
  constructor() {
    const baseDescription: INodeTypeBaseDescription = {
      displayName: 'Assistant Turns',
      name: 'assistantTurns',
      icon: 'file:assistantTurns.svg',
      group: ['transform'],
      defaultVersion: 1,
      subtitle: '={{ $parameter["operation"] }}',
      description: "Store the user's message on arrival, then the reply or the failure; wait for a turn's reply",
    };
    const nodeVersions: IVersionedNodeType['nodeVersions'] = { 1: new AssistantTurnsV1(baseDescription) };
    super(nodeVersions, baseDescription);
  }
}
