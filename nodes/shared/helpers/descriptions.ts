// Description parts several nodes share.
import type { INodeProperties, INodeTypeDescription } from 'n8n-workflow';

/** What a node version adds to its base description (actions/versionDescription.ts). */
export type VersionDescription = Omit<INodeTypeDescription, 'displayName' | 'name' | 'group' | 'description'>;

/** The user every operation acts for: set by the workflow from the context step, never by the model. */
export const userIdProperty: INodeProperties = {
  displayName: 'User ID',
  name: 'userId',
  type: 'string',
  required: true,
  default: '={{ $json.userId }}',
  description: 'The assistant user (UUID from Resolve Identity). Set it from the workflow, never from the model.',
};

/** The operator's answer to an approval question (the ask-user workflow's output): what only a yes acts on. */
export function approvalAnswerProperties(what: string): INodeProperties[] {
  return [
    {
      displayName: 'Question ID',
      name: 'questionId',
      type: 'string',
      default: '',
      description: 'The approval question the operator was asked',
    },
    {
      displayName: 'Answer Status',
      name: 'answerStatus',
      type: 'string',
      default: 'answered',
      description: 'Whether the question was answered ("answered") or expired',
    },
    {
      displayName: 'Answer',
      name: 'answer',
      type: 'string',
      default: '',
      description: `The operator's answer; only a yes ${what}`,
    },
  ];
}
