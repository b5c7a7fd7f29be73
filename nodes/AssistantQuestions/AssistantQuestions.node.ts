// Assistant Questions: the one mechanism for a run that pauses for its user (a one-time code, an approval, a free
// question): ask, remember the channel's message, wait for the answer (docs/ASSISTANT.md).
import { VersionedNodeType, type INodeTypeBaseDescription, type IVersionedNodeType } from 'n8n-workflow';

import { AssistantQuestionsV1 } from './v1/AssistantQuestionsV1.node';

export class AssistantQuestions extends VersionedNodeType {
  constructor() {
    const baseDescription: INodeTypeBaseDescription = {
      displayName: 'Assistant Questions',
      name: 'assistantQuestions',
      icon: 'file:assistantQuestions.svg',
      group: ['transform'],
      defaultVersion: 1,
      subtitle: '={{ $parameter["operation"] }}',
      description: 'Ask the user something mid-run and wait for the answer (codes, approvals, questions)',
    };
    const nodeVersions: IVersionedNodeType['nodeVersions'] = { 1: new AssistantQuestionsV1(baseDescription) };
    super(nodeVersions, baseDescription);
  }
}
