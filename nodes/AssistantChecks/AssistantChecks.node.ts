// Assistant Checks: silent background checks of pages, feeds, searches and JSON values that speak only on a real
// delta (with the Judge deciding "worth telling" when the user set a condition), and the run steps the tick starts.
import { VersionedNodeType, type INodeTypeBaseDescription, type IVersionedNodeType } from 'n8n-workflow';

import { AssistantChecksV1 } from './v1/AssistantChecksV1.node';

export class AssistantChecks extends VersionedNodeType {
  constructor() {
    const baseDescription: INodeTypeBaseDescription = {
      displayName: 'Assistant Checks',
      name: 'assistantChecks',
      icon: 'file:assistantChecks.svg',
      group: ['transform'],
      defaultVersion: 1,
      subtitle: '={{ $parameter["operation"] }}',
      description: 'Watch a page, feed, search or JSON value and speak only when it really changes',
    };
    const nodeVersions: IVersionedNodeType['nodeVersions'] = { 1: new AssistantChecksV1(baseDescription) };
    super(nodeVersions, baseDescription);
  }
}
