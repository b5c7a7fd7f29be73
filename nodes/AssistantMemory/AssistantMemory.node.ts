// Assistant Memory: remember, recall, update and forget what the assistant knows about one user.
import { NodeConnectionTypes, NodeOperationError, type IDataObject, type IExecuteFunctions, type INodeExecutionData, type INodeType, type INodeTypeDescription } from 'n8n-workflow';
import { forgetMemory, getMemory, openAiEmbedder, recallWithEmbedding, recentMemories, rememberAndEmbed, updateAndEmbed, MEMORY_KINDS, type Embedder } from 'assistant-core';
import { asData, parameter, postgresCredentials, runItems, userIdProperty } from '../shared/n8n/runItems';

/** The optional embeddings endpoint (base URL, key, model, dimensions); the key stays in n8n's credential store. */
export const EMBEDDINGS_CREDENTIAL = 'assistantEmbeddingsApi';

async function embedderFor(context: IExecuteFunctions): Promise<Embedder | undefined> {
  if (!context.getNode().credentials?.[EMBEDDINGS_CREDENTIAL]) return undefined;
  const credential = await context.getCredentials(EMBEDDINGS_CREDENTIAL);
  try {
    return openAiEmbedder({
      baseUrl: String(credential.baseUrl ?? ''),
      apiKey: String(credential.apiKey ?? ''),
      model: String(credential.model ?? ''),
      dimensions: Number(credential.dimensions ?? 0),
    });
  } catch (error) {
    throw new NodeOperationError(context.getNode(), `Assistant Embeddings API credential: ${(error as Error).message}`);
  }
}

const kindOptions = MEMORY_KINDS.map((kind) => ({ name: kind[0].toUpperCase() + kind.slice(1), value: kind }));
const ALL = ['remember', 'recall', 'recent', 'get', 'update', 'forget'];

/**
 * In Update Fields an empty value leaves a field unchanged (so an expression that resolves to nothing never
 * erases data); "none" empties a list or the source.
 */
function updateInput(fields: IDataObject): IDataObject {
  const input: IDataObject = {};
  for (const [key, value] of Object.entries(fields)) {
    if (value === '' || value === undefined || value === null) continue;
    input[key] = typeof value === 'string' && value.trim().toLowerCase() === 'none' && key !== 'content' ? (key === 'source' ? null : []) : value;
  }
  return input;
}

export class AssistantMemory implements INodeType {
  description: INodeTypeDescription = {
    displayName: 'Assistant Memory',
    name: 'assistantMemory',
    icon: 'file:assistantMemory.svg',
    group: ['transform'],
    version: 1,
    subtitle: '={{ $parameter["operation"] }}',
    description: "Remember, recall, update and forget facts about the assistant's user",
    defaults: { name: 'Assistant Memory' },
    inputs: [NodeConnectionTypes.Main],
    outputs: [NodeConnectionTypes.Main],
    usableAsTool: true,
    credentials: [...(postgresCredentials ?? []), { name: EMBEDDINGS_CREDENTIAL, required: false }],
    properties: [
      {
        displayName: 'Operation',
        name: 'operation',
        type: 'options',
        noDataExpression: true,
        options: [
          { name: 'Forget', value: 'forget', action: 'Forget a memory', description: 'Delete a memory' },
          { name: 'Get', value: 'get', action: 'Get a memory', description: 'One memory by ID' },
          { name: 'Recall', value: 'recall', action: 'Recall memories', description: 'Find the memories most relevant to a query (full text, names, recency, embeddings when configured)' },
          { name: 'Recent', value: 'recent', action: 'List recent memories', description: 'The newest memories' },
          { name: 'Remember', value: 'remember', action: 'Remember a fact', description: 'Store a new memory' },
          { name: 'Update', value: 'update', action: 'Update a memory', description: 'Change some fields of a memory' },
        ],
        default: 'recall',
      },
      userIdProperty(ALL),
      {
        displayName: 'Content',
        name: 'content',
        type: 'string',
        typeOptions: { rows: 3 },
        required: true,
        default: '',
        description: 'The fact to remember, in a full sentence',
        displayOptions: { show: { operation: ['remember'] } },
      },
      {
        displayName: 'Query',
        name: 'query',
        type: 'string',
        required: true,
        default: '',
        description: 'What to look for: words, a question, or a name',
        displayOptions: { show: { operation: ['recall'] } },
      },
      {
        displayName: 'Memory ID',
        name: 'memoryId',
        type: 'number',
        required: true,
        default: 0,
        displayOptions: { show: { operation: ['get', 'update', 'forget'] } },
      },
      {
        displayName: 'Options',
        name: 'details',
        type: 'collection',
        placeholder: 'Add Field',
        default: {},
        displayOptions: { show: { operation: ['remember'] } },
        options: [
          { displayName: 'Kind', name: 'kind', type: 'options', options: kindOptions, default: 'fact' },
          { displayName: 'Importance', name: 'importance', type: 'number', typeOptions: { minValue: 1, maxValue: 5 }, default: 3, description: '1 (trivia) to 5 (essential)' },
          { displayName: 'Tags', name: 'tags', type: 'string', default: '', description: 'Comma-separated' },
          { displayName: 'People', name: 'people', type: 'string', default: '', description: 'Comma-separated names of the people the memory is about' },
          { displayName: 'Entities', name: 'entities', type: 'string', default: '', description: 'Comma-separated companies, products, places, … it names' },
          { displayName: 'Source', name: 'source', type: 'string', default: '', description: 'Where it came from, e.g. telegram or api' },
        ],
      },
      {
        displayName: 'Update Fields',
        name: 'updateFields',
        type: 'collection',
        placeholder: 'Add Field',
        default: {},
        description: 'Only the fields added here change; empty values change nothing; "none" empties a list or the source',
        displayOptions: { show: { operation: ['update'] } },
        options: [
          { displayName: 'Content', name: 'content', type: 'string', typeOptions: { rows: 3 }, default: '' },
          { displayName: 'Kind', name: 'kind', type: 'options', options: kindOptions, default: 'fact' },
          { displayName: 'Importance', name: 'importance', type: 'number', typeOptions: { minValue: 1, maxValue: 5 }, default: 3 },
          { displayName: 'Tags', name: 'tags', type: 'string', default: '', description: 'Comma-separated' },
          { displayName: 'People', name: 'people', type: 'string', default: '', description: 'Comma-separated' },
          { displayName: 'Entities', name: 'entities', type: 'string', default: '', description: 'Comma-separated' },
          { displayName: 'Source', name: 'source', type: 'string', default: '' },
        ],
      },
      {
        displayName: 'Limit',
        name: 'limit',
        type: 'number',
        typeOptions: { minValue: 1, maxValue: 100 },
        default: 10,
        description: 'Max number of results to return',
        displayOptions: { show: { operation: ['recall', 'recent'] } },
      },
      {
        displayName: 'Kind Filter',
        name: 'kindFilter',
        type: 'options',
        options: [{ name: 'Any', value: '' }, ...kindOptions],
        default: '',
        displayOptions: { show: { operation: ['recall'] } },
      },
    ],
  };

  async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
    const embedder = await embedderFor(this);
    return runItems(this, async (pool, i) => {
      const operation = this.getNodeParameter('operation', i) as string;
      const userId = parameter(this, 'userId', i);
      switch (operation) {
        case 'remember':
          // `embedding` says whether the vector was stored; a failing endpoint never loses the memory.
          return asData(await rememberAndEmbed(pool, userId, { content: parameter(this, 'content', i), ...(parameter(this, 'details', i) as object) }, embedder));
        case 'recall': {
          const query = parameter(this, 'query', i);
          const { memories, embedding } = await recallWithEmbedding(pool, userId, query, { limit: parameter(this, 'limit', i), kind: parameter(this, 'kindFilter', i), embedder });
          return asData({ query, count: memories.length, memories, embedding });
        }
        case 'recent': {
          const memories = await recentMemories(pool, userId, parameter(this, 'limit', i));
          return asData({ count: memories.length, memories });
        }
        case 'get':
          return asData({ memory: await getMemory(pool, userId, parameter(this, 'memoryId', i)) });
        case 'update':
          return asData(await updateAndEmbed(pool, userId, parameter(this, 'memoryId', i), updateInput(parameter(this, 'updateFields', i) as IDataObject), embedder));
        case 'forget':
          return asData({ forgotten: await forgetMemory(pool, userId, parameter(this, 'memoryId', i)) });
        default:
          throw new NodeOperationError(this.getNode(), `Operation "${operation}" is not supported`, { itemIndex: i });
      }
    });
  }
}
