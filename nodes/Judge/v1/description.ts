// The parameters of Judge v1.
import type { INodeProperties } from 'n8n-workflow';

const judgeOnly = { show: { mode: ['judge'] } };

export const judgeProperties: INodeProperties[] = [
  {
    displayName: 'Mode',
    name: 'mode',
    type: 'options',
    noDataExpression: true,
    options: [
      {
        name: 'Judge Items',
        value: 'judge',
        description: 'Ask the questions below about a state read from each item',
        action: 'Judge items',
      },
      {
        name: 'Pass Through Webhook Request',
        value: 'passThrough',
        description:
          'Check the Bearer key of the incoming webhook request, forward its body to the judge, and output the reply for Respond to Webhook',
        action: 'Pass through a webhook request',
      },
    ],
    default: 'judge',
  },
  {
    displayName: 'Model',
    name: 'model',
    type: 'string',
    default: 'jev-latest',
    required: true,
    description:
      'The model to ask. The judge server maps "jev-latest" (the TypeSafe SDK default) to its pinned model; GET /v1/models lists the others.',
    displayOptions: judgeOnly,
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
    displayOptions: judgeOnly,
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
    displayOptions: judgeOnly,
  },
  {
    displayName: 'Questions',
    name: 'questions',
    type: 'fixedCollection',
    placeholder: 'Add Question',
    typeOptions: { multipleValues: true, sortable: true },
    default: {},
    displayOptions: judgeOnly,
    options: [
      {
        displayName: 'Question',
        name: 'question',
        values: [
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
        ],
      },
    ],
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
    displayOptions: judgeOnly,
  },
  {
    displayName: 'Route Question Name',
    name: 'routeQuestion',
    type: 'string',
    noDataExpression: true,
    default: '',
    required: true,
    description: 'The name of the question whose answer picks the output',
    displayOptions: { show: { mode: ['judge'], routeBy: ['choice', 'noul'] } },
  },
  {
    displayName: 'Threshold',
    name: 'threshold',
    type: 'number',
    typeOptions: { minValue: 0, maxValue: 1, numberPrecision: 3 },
    default: 0.5,
    description: 'Items whose yes probability is at least this go to True, the rest to False',
    displayOptions: { show: { mode: ['judge'], routeBy: ['noul'] } },
  },
  {
    displayName: 'Options',
    name: 'requestOptions',
    type: 'collection',
    placeholder: 'Add Option',
    default: {},
    options: [
      {
        displayName: 'Timeout (Ms)',
        name: 'timeout',
        type: 'number',
        typeOptions: { minValue: 1 },
        default: 60000,
        description: 'How long to wait for the judge',
      },
    ],
  },
];
