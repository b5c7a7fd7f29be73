// Judge: asks a System One server noul/choice/score questions about each item and outputs the answers.
import { VersionedNodeType, type INodeTypeBaseDescription, type IVersionedNodeType } from 'n8n-workflow';

import { JudgeV1 } from './v1/JudgeV1.node';

export class Judge extends VersionedNodeType {
  constructor() {
    const baseDescription: INodeTypeBaseDescription = {
      displayName: 'Judge',
      name: 'judge',
      icon: 'file:judge.svg',
      group: ['transform'],
      defaultVersion: 1,
      subtitle: '={{ $parameter["mode"] === "passThrough" ? "pass through" : "judge items" }}',
      description: 'Ask yes/no, choice and score questions about text or JSON, answered as probabilities',
    };
    const nodeVersions: IVersionedNodeType['nodeVersions'] = { 1: new JudgeV1(baseDescription) };
    super(nodeVersions, baseDescription);
  }
}
