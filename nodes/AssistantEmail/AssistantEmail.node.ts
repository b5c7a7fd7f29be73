// Assistant Email: an email from n8n's Email Trigger (IMAP) checked and let in by the people gate before anything is
// stored, a turn followed until its reply (or question) is emailed in the user's thread, a reply sent in a thread,
// and the copies for other recipients released or refused by the user's answer. The SMTP login comes from n8n's SMTP
// credential, never from the workflow.
import { VersionedNodeType, type INodeTypeBaseDescription, type IVersionedNodeType } from 'n8n-workflow';

import { AssistantEmailV1 } from './v1/AssistantEmailV1.node';

export class AssistantEmail extends VersionedNodeType {
  constructor() {
    const baseDescription: INodeTypeBaseDescription = {
      displayName: 'Assistant Email',
      name: 'assistantEmail',
      icon: 'file:assistantEmail.svg',
      group: ['transform'],
      defaultVersion: 1,
      subtitle: '={{ $parameter["operation"] }}',
      description: "The assistant by email: check an email, email a turn's reply or question in its thread",
    };
    const nodeVersions: IVersionedNodeType['nodeVersions'] = { 1: new AssistantEmailV1(baseDescription) };
    super(nodeVersions, baseDescription);
  }
}
