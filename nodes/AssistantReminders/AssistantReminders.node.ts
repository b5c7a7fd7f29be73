// Assistant Reminders: the agent's tools for speaking later: reminders set in the user's words and zone, recurring actions,
// and the preferences they follow (time zone, quiet hours, briefing time).
import { VersionedNodeType, type INodeTypeBaseDescription, type IVersionedNodeType } from 'n8n-workflow';

import { AssistantRemindersV1 } from './v1/AssistantRemindersV1.node';

export class AssistantReminders extends VersionedNodeType {
  constructor() {
    const baseDescription: INodeTypeBaseDescription = {
      displayName: 'Assistant Reminders',
      name: 'assistantReminders',
      icon: 'file:assistantReminders.svg',
      group: ['transform'],
      defaultVersion: 1,
      subtitle: '={{ $parameter["operation"] }}',
      description: "Reminders, recurring actions and a user's time zone, quiet hours and briefing time",
    };
    const nodeVersions: IVersionedNodeType['nodeVersions'] = { 1: new AssistantRemindersV1(baseDescription) };
    super(nodeVersions, baseDescription);
  }
}
