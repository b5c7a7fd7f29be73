// Assistant Tool Builder: tools the assistant builds from a spec, reviewed by the operator before they go live: the
// draft (created inactive through n8n's public API), the approval question with the test output, the operator's
// decision, run_tool's checked inputs, and list, disable, delete (docs/TOOL-BUILDING.md).
import { VersionedNodeType, type INodeTypeBaseDescription, type IVersionedNodeType } from 'n8n-workflow';

import { AssistantToolBuilderV1 } from './v1/AssistantToolBuilderV1.node';

export class AssistantToolBuilder extends VersionedNodeType {
  constructor() {
    const baseDescription: INodeTypeBaseDescription = {
      displayName: 'Assistant Tool Builder',
      name: 'assistantToolBuilder',
      icon: 'file:assistantToolBuilder.svg',
      group: ['transform'],
      defaultVersion: 1,
      subtitle: '={{ $parameter["operation"] }}',
      description: 'Tools the assistant builds, live only after the operator approves them',
    };
    const nodeVersions: IVersionedNodeType['nodeVersions'] = { 1: new AssistantToolBuilderV1(baseDescription) };
    super(nodeVersions, baseDescription);
  }
}
