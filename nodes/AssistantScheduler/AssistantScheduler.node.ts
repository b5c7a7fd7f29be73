// Assistant Scheduler: the minute tick and the jobs it starts. The tick decides from the data what is due; the heartbeat
// calls no model unless there is something to say.
import { VersionedNodeType, type INodeTypeBaseDescription, type IVersionedNodeType } from 'n8n-workflow';

import { AssistantSchedulerV1 } from './v1/AssistantSchedulerV1.node';

export class AssistantScheduler extends VersionedNodeType {
  constructor() {
    const baseDescription: INodeTypeBaseDescription = {
      displayName: 'Assistant Scheduler',
      name: 'assistantScheduler',
      icon: 'file:assistantScheduler.svg',
      group: ['transform'],
      defaultVersion: 1,
      subtitle: '={{ $parameter["operation"] }}',
      description: 'The minute tick: reminders, the heartbeat, recurring actions and briefings, with a run ledger',
    };
    const nodeVersions: IVersionedNodeType['nodeVersions'] = { 1: new AssistantSchedulerV1(baseDescription) };
    super(nodeVersions, baseDescription);
  }
}
