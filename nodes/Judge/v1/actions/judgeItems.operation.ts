// Mode "Judge Items": for each item, read the state, ask the questions, output the answers (and route them).
import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError, updateDisplayOptions } from 'n8n-workflow';
import { FieldError, type Answer, type SystemOneRequest, type SystemOneResponse } from 'systemone-judge/core';

import { failedItem } from '../../../shared/helpers/errors';
import { describeErrorBody, refusalFields } from '../helpers/errorBody';
import { configureOutputs, type OutputParameters, type RouteBy } from '../helpers/outputs';
import { buildQuestions, type QuestionParameter } from '../helpers/questions';
import { readState, type StateFormat } from '../helpers/state';
import { postSystemOne, readSystemOneCredential } from '../../../shared/transport/systemOneClient';
import { requestOptions } from './common.descriptions';

const questionFields: INodeProperties[] = [
  {
    displayName: 'Instructions',
    name: 'instructions',
    type: 'string',
    typeOptions: { rows: 2 },
    default: '',
    description: 'The question, in words',
  },
  {
    displayName: 'Levels',
    name: 'levels',
    type: 'fixedCollection',
    placeholder: 'Add Level',
    typeOptions: { multipleValues: true, sortable: true },
    default: {},
    description: 'From lowest to highest; 2 to 10 levels',
    displayOptions: { show: { type: ['score'] } },
    options: [
      {
        displayName: 'Level',
        name: 'level',
        values: [{ displayName: 'Description', name: 'description', type: 'string', default: '' }],
      },
    ],
  },
  {
    displayName: 'Name',
    name: 'name',
    type: 'string',
    default: '',
    required: true,
    description: 'The key of this answer in the output, e.g. "urgent"',
  },
  {
    displayName: 'Options',
    name: 'options',
    type: 'fixedCollection',
    placeholder: 'Add Option',
    typeOptions: { multipleValues: true, sortable: true },
    default: {},
    displayOptions: { show: { type: ['choice'] } },
    options: [
      {
        displayName: 'Option',
        name: 'option',
        values: [
          { displayName: 'Label', name: 'label', type: 'string', default: '', required: true },
          {
            displayName: 'Description',
            name: 'description',
            type: 'string',
            default: '',
            description: 'Optional: when this option applies',
          },
        ],
      },
    ],
  },
  {
    displayName: 'Type',
    name: 'type',
    type: 'options',
    options: [
      { name: 'Yes/No', value: 'noul', description: 'The probability that the answer is yes' },
      { name: 'Choice', value: 'choice', description: 'One of several labelled options' },
      { name: 'Score', value: 'score', description: 'A level on a scale, low to high' },
    ],
    default: 'noul',
  },
  {
    displayName: 'When No',
    name: 'falseCriterion',
    type: 'string',
    default: '',
    description: 'Optional: what makes the answer no',
    displayOptions: { show: { type: ['noul'] } },
  },
  {
    displayName: 'When Yes',
    name: 'trueCriterion',
    type: 'string',
    default: '',
    description: 'Optional: what makes the answer yes',
    displayOptions: { show: { type: ['noul'] } },
  },
];

const properties: INodeProperties[] = [
  {
    displayName: 'Model',
    name: 'model',
    type: 'string',
    default: 'jev-latest',
    required: true,
    description:
      'The model to ask. The judge server maps "jev-latest" (the TypeSafe SDK default) to its pinned model; ' +
      'GET /v1/models lists the others.',
  },
  {
    displayName: 'State Format',
    name: 'stateFormat',
    type: 'options',
    options: [
      { name: 'Text', value: 'text', description: 'Send the state as free text' },
      { name: 'JSON', value: 'json', description: 'Parse the state as a JSON object or array' },
    ],
    default: 'text',
    description: 'An expression that returns an object or array is always sent as JSON',
  },
  {
    displayName: 'State',
    name: 'state',
    type: 'string',
    typeOptions: { rows: 4 },
    default: '',
    required: true,
    placeholder: 'e.g. {{ $json.message }}',
    description: 'What the questions are about: text or JSON, usually from an expression',
  },
  {
    displayName: 'Questions',
    name: 'questions',
    type: 'fixedCollection',
    placeholder: 'Add Question',
    typeOptions: { multipleValues: true, sortable: true },
    default: {},
    options: [{ displayName: 'Question', name: 'question', values: questionFields }],
  },
  {
    displayName: 'Route By',
    name: 'routeBy',
    type: 'options',
    noDataExpression: true,
    options: [
      { name: 'No Routing', value: 'none', description: 'One output with every item' },
      { name: 'Choice Question', value: 'choice', description: 'One output per option of a choice question' },
      { name: 'Yes/No Threshold', value: 'noul', description: 'True and False outputs by a yes/no probability' },
    ],
    default: 'none',
  },
  {
    displayName: 'Route Question Name',
    name: 'routeQuestion',
    type: 'string',
    noDataExpression: true,
    default: '',
    required: true,
    description: 'The name of the question whose answer picks the output',
    displayOptions: { show: { routeBy: ['choice', 'noul'] } },
  },
  {
    displayName: 'Threshold',
    name: 'threshold',
    type: 'number',
    typeOptions: { minValue: 0, maxValue: 1, numberPrecision: 3 },
    default: 0.5,
    description: 'Items whose yes probability is at least this go to True, the rest to False',
    displayOptions: { show: { routeBy: ['noul'] } },
  },
  requestOptions,
];

const displayOptions = { show: { mode: ['judge'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
  const items = this.getInputData();
  const outputCount = configureOutputs(this.getNode().parameters as OutputParameters).length;
  const outputs: INodeExecutionData[][] = Array.from({ length: outputCount }, () => []);
  const credential = await readSystemOneCredential(this);

  for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
    // Set when the server answered non-2xx: the failed item (under Continue On Fail) carries it beside its error.
    let refusal: IDataObject | undefined;
    try {
      const request = readRequest(this, itemIndex);
      const timeout = this.getNodeParameter('requestOptions.timeout', itemIndex, 60000) as number;
      let reply;
      try {
        reply = await postSystemOne(this, credential, request, timeout);
      } catch (error) {
        throw new NodeApiError(this.getNode(), { message: (error as Error).message } as JsonObject, {
          itemIndex,
          message: `Could not reach the System One server at ${credential.baseUrl}`,
          description: (error as Error).message,
        });
      }
      if (reply.statusCode < 200 || reply.statusCode >= 300) {
        refusal = refusalFields(reply.statusCode, reply.body);
        throw new NodeApiError(this.getNode(), (reply.body ?? {}) as JsonObject, {
          itemIndex,
          httpCode: String(reply.statusCode),
          message: `The System One server answered ${reply.statusCode}: ${describeErrorBody(reply.body)}`,
        });
      }
      const response = reply.body as SystemOneResponse;
      const output = pickOutput(this, itemIndex, response);
      outputs[output].push({ json: response as unknown as JsonObject, pairedItem: { item: itemIndex } });
    } catch (error) {
      const failed = failedItem(this, error, itemIndex);
      Object.assign(failed.json, refusal);
      outputs[0].push(failed);
    }
  }
  return outputs;
}

/** The request for one item; bad parameters throw a FieldError naming the parameter. */
function readRequest(context: IExecuteFunctions, itemIndex: number): SystemOneRequest {
  const model = String(context.getNodeParameter('model', itemIndex, '')).trim();
  if (model === '') throw new FieldError('Model', 'is empty');
  const format = context.getNodeParameter('stateFormat', itemIndex, 'text') as StateFormat;
  const questionParameters = context.getNodeParameter('questions.question', itemIndex, []) as QuestionParameter[];
  const state = readState(context.getNodeParameter('state', itemIndex, ''), format);
  return { model, state, questions: buildQuestions(questionParameters) };
}

const ROUTE_QUESTION = 'Route Question Name';

/** The output index for this answer: 0 without routing. */
function pickOutput(context: IExecuteFunctions, itemIndex: number, response: SystemOneResponse): number {
  const routeBy = context.getNodeParameter('routeBy', itemIndex, 'none') as RouteBy;
  if (routeBy === 'none') return 0;
  const name = context.getNodeParameter('routeQuestion', itemIndex, '') as string;
  const answer: Answer | undefined = response.answers?.[name];
  if (!answer) throw new FieldError(ROUTE_QUESTION, `no question is named "${name}"`);
  if (routeBy === 'noul') {
    if (answer.type !== 'noul') throw new FieldError(ROUTE_QUESTION, `"${name}" is not a yes/no question`);
    const threshold = context.getNodeParameter('threshold', itemIndex, 0.5) as number;
    return answer.noul >= threshold ? 0 : 1;
  }
  if (answer.type !== 'choice') throw new FieldError(ROUTE_QUESTION, `"${name}" is not a choice question`);
  // The outputs are the options as configured (configureOutputs), so look the choice up there.
  const questions = context.getNodeParameter('questions.question', itemIndex, []) as QuestionParameter[];
  const routed = questions.find((question) => question.name === name);
  const labels = (routed?.options?.option ?? []).map((option) => option.label);
  const output = labels.indexOf(answer.choice);
  if (output < 0) {
    const message = `The judge chose "${answer.choice}", which is not an option`;
    throw new NodeOperationError(context.getNode(), message, { itemIndex });
  }
  return output;
}
