// Assistant People: several people on one install. The owner issues pairing codes, lists and removes people, and sets
// who may talk on each channel (the DM policy); anyone paired issues a code to pair another channel of theirs.
import { VersionedNodeType, type INodeTypeBaseDescription, type IVersionedNodeType } from 'n8n-workflow';

import { AssistantPeopleV1 } from './v1/AssistantPeopleV1.node';

export class AssistantPeople extends VersionedNodeType {
  constructor() {
    const baseDescription: INodeTypeBaseDescription = {
      displayName: 'Assistant People',
      name: 'assistantPeople',
      icon: 'file:assistantPeople.svg',
      group: ['transform'],
      defaultVersion: 1,
      subtitle: '={{ $parameter["operation"] }}',
      description: 'Pairing codes, the people on the install, and who may talk on each channel',
    };
    const nodeVersions: IVersionedNodeType['nodeVersions'] = { 1: new AssistantPeopleV1(baseDescription) };
    super(nodeVersions, baseDescription);
  }
}
