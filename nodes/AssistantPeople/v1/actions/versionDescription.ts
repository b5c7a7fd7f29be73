// Assistant People v1: the operation selector, then each operation's parameters.
import { NodeConnectionTypes } from 'n8n-workflow';

import type { VersionDescription } from '../../../shared/helpers/descriptions';
import { postgresCredentials } from '../../../shared/transport/postgres';
import * as issuePairingCode from './issuePairingCode.operation';
import * as listPeople from './listPeople.operation';
import * as removePerson from './removePerson.operation';
import * as setDmPolicy from './setDmPolicy.operation';

export const versionDescription: VersionDescription = {
  version: 1,
  defaults: { name: 'Assistant People' },
  inputs: [NodeConnectionTypes.Main],
  outputs: [NodeConnectionTypes.Main],
  usableAsTool: true,
  credentials: postgresCredentials,
  properties: [
    {
      displayName: 'Operation',
      name: 'operation',
      type: 'options',
      noDataExpression: true,
      options: [
        {
          name: 'Issue Pairing Code',
          value: 'issuePairingCode',
          action: 'Issue a pairing code',
          description: 'A one-time code that lets a new person in, or pairs another channel of the caller',
        },
        {
          name: 'List People',
          value: 'listPeople',
          action: 'List the people',
          description: 'The people on the install, their channels, and each channel’s DM policy (owner only)',
        },
        {
          name: 'Remove Person',
          value: 'removePerson',
          action: 'Remove a person',
          description: 'They can no longer talk to the assistant; their data kept or purged (owner only)',
        },
        {
          name: 'Set DM Policy',
          value: 'setDmPolicy',
          action: 'Set a channel DM policy',
          description: 'Who may talk on a channel: the owner, people paired by code, or an allow list (owner only)',
        },
      ],
      default: 'listPeople',
    },
    ...issuePairingCode.description,
    ...listPeople.description,
    ...removePerson.description,
    ...setDmPolicy.description,
  ],
};
