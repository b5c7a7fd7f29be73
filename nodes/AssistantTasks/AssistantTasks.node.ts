// Assistant Tasks: the user's to-do list, with priorities, due times, subtasks and tags.
import { VersionedNodeType, type INodeTypeBaseDescription, type IVersionedNodeType } from 'n8n-workflow';

import { AssistantTasksV1 } from './v1/AssistantTasksV1.node';

export class AssistantTasks extends VersionedNodeType {
  constructor() {
    const baseDescription: INodeTypeBaseDescription = {
      displayName: 'Assistant Tasks',
      name: 'assistantTasks',
      icon: 'file:assistantTasks.svg',
      group: ['transform'],
      defaultVersion: 1,
      subtitle: '={{ $parameter["operation"] }}',
      description: "Create, list, update, complete and delete the assistant user's tasks",
    };
    const nodeVersions: IVersionedNodeType['nodeVersions'] = { 1: new AssistantTasksV1(baseDescription) };
    super(nodeVersions, baseDescription);
  }
}
