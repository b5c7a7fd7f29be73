// Assistant Knowledge Graph v1: the operation selector, then each operation's parameters.
import { NodeConnectionTypes } from 'n8n-workflow';

import type { VersionDescription } from '../../../shared/helpers/descriptions';
import { postgresCredentials } from '../../../shared/transport/postgres';
import * as endRelation from './endRelation.operation';
import * as query from './query.operation';
import * as relate from './relate.operation';
import * as upsertEntity from './upsertEntity.operation';

export const versionDescription: VersionDescription = {
  version: 1,
  defaults: { name: 'Assistant Knowledge Graph' },
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
          name: 'End Relation',
          value: 'endRelation',
          action: 'End a relation',
          description: 'Mark a relation as no longer valid (history is kept)',
        },
        {
          name: 'Query',
          value: 'query',
          action: 'Query an entity',
          description: 'An entity, its neighbours up to depth 2, and the memories that mention it',
        },
        {
          name: 'Relate',
          value: 'relate',
          action: 'Relate two entities',
          description: 'Record that one entity relates to another, e.g. "Stefan works_at Acme"',
        },
        {
          name: 'Upsert Entity',
          value: 'upsertEntity',
          action: 'Create or update an entity',
          description: 'A person, company, product, … (unique by name)',
        },
      ],
      default: 'query',
    },
    ...endRelation.description,
    ...query.description,
    ...relate.description,
    ...upsertEntity.description,
  ],
};
