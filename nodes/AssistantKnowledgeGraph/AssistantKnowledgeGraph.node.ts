// Assistant Knowledge Graph: people, companies, products, … and typed relations between them, per user.
import { NodeConnectionTypes, NodeOperationError, type IExecuteFunctions, type INodeExecutionData, type INodeType, type INodeTypeDescription } from 'n8n-workflow';
import { endRelation, queryGraph, relate, upsertEntity, ENTITY_TYPES } from 'assistant-core';
import { asData, parameter, postgresCredentials, runItems, userIdProperty } from '../shared/n8n/runItems';

const typeOptions = ENTITY_TYPES.map((type) => ({ name: type[0].toUpperCase() + type.slice(1), value: type }));
const ALL = ['upsertEntity', 'relate', 'query', 'endRelation'];

export class AssistantKnowledgeGraph implements INodeType {
  description: INodeTypeDescription = {
    displayName: 'Assistant Knowledge Graph',
    name: 'assistantKnowledgeGraph',
    icon: 'file:assistantKnowledgeGraph.svg',
    group: ['transform'],
    version: 1,
    subtitle: '={{ $parameter["operation"] }}',
    description: "Entities and their relations in the assistant user's knowledge graph",
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
          { name: 'End Relation', value: 'endRelation', action: 'End a relation', description: 'Mark a relation as no longer valid (history is kept)' },
          { name: 'Query', value: 'query', action: 'Query an entity', description: 'An entity, its neighbours up to depth 2, and the memories that mention it' },
          { name: 'Relate', value: 'relate', action: 'Relate two entities', description: 'Record that one entity relates to another, e.g. "Stefan works_at Acme"' },
          { name: 'Upsert Entity', value: 'upsertEntity', action: 'Create or update an entity', description: 'A person, company, product, … (unique by name)' },
        ],
        default: 'query',
      },
      userIdProperty(ALL),
      {
        displayName: 'Name',
        name: 'name',
        type: 'string',
        required: true,
        default: '',
        description: 'The entity name; a first name finds the closest full name',
        displayOptions: { show: { operation: ['upsertEntity', 'query'] } },
      },
      {
        displayName: 'Type',
        name: 'entityType',
        type: 'options',
        options: [{ name: 'Keep / Other', value: '' }, ...typeOptions],
        default: '',
        displayOptions: { show: { operation: ['upsertEntity'] } },
      },
      {
        displayName: 'Summary',
        name: 'summary',
        type: 'string',
        default: '',
        description: 'A short description; empty keeps the current one',
        displayOptions: { show: { operation: ['upsertEntity'] } },
      },
      { displayName: 'From', name: 'from', type: 'string', required: true, default: '', displayOptions: { show: { operation: ['relate'] } } },
      {
        displayName: 'Relation',
        name: 'relation',
        type: 'string',
        required: true,
        default: '',
        placeholder: 'works_at',
        description: 'The relation type, in snake_case (spaces become underscores)',
        displayOptions: { show: { operation: ['relate'] } },
      },
      { displayName: 'To', name: 'to', type: 'string', required: true, default: '', displayOptions: { show: { operation: ['relate'] } } },
      {
        displayName: 'Valid From',
        name: 'validFrom',
        type: 'string',
        default: '',
        description: 'ISO 8601 date-time; empty for "always"',
        displayOptions: { show: { operation: ['relate'] } },
      },
      {
        displayName: 'Valid To',
        name: 'validTo',
        type: 'string',
        default: '',
        description: 'ISO 8601 date-time; empty for "still valid" (End Relation: empty means now)',
        displayOptions: { show: { operation: ['relate', 'endRelation'] } },
      },
      {
        displayName: 'Relation ID',
        name: 'relationId',
        type: 'number',
        required: true,
        default: 0,
        displayOptions: { show: { operation: ['endRelation'] } },
      },
      {
        displayName: 'Depth',
        name: 'depth',
        type: 'number',
        typeOptions: { minValue: 0, maxValue: 2 },
        default: 2,
        displayOptions: { show: { operation: ['query'] } },
      },
      {
        displayName: 'Include Ended Relations',
        name: 'includeEnded',
        type: 'boolean',
        default: false,
        displayOptions: { show: { operation: ['query'] } },
      },
    ],
  };

  async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
    return runItems(this, async (pool, i) => {
      const operation = this.getNodeParameter('operation', i) as string;
      const userId = parameter(this, 'userId', i);
      switch (operation) {
        case 'upsertEntity':
          return asData({
            entity: await upsertEntity(pool, userId, { name: parameter(this, 'name', i), type: parameter(this, 'entityType', i), summary: parameter(this, 'summary', i) }),
          });
        case 'relate':
          return asData({
            relation: await relate(pool, userId, {
              from: parameter(this, 'from', i),
              relation: parameter(this, 'relation', i),
              to: parameter(this, 'to', i),
              validFrom: parameter(this, 'validFrom', i),
              validTo: parameter(this, 'validTo', i),
            }),
          });
        case 'query':
          return asData(await queryGraph(pool, userId, parameter(this, 'name', i), { depth: parameter(this, 'depth', i), includeEnded: parameter(this, 'includeEnded', i) === true }));
        case 'endRelation':
          return asData({ relation: await endRelation(pool, userId, parameter(this, 'relationId', i), parameter(this, 'validTo', i)) });
        default:
          throw new NodeOperationError(this.getNode(), `Operation "${operation}" is not supported`, { itemIndex: i });
      }
    });
  }
}
