// Mode "Judge Items": for each item, read the state, ask the questions, output the answers (and route them).
import type { IExecuteFunctions, INodeExecutionData, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { Answer, SystemOneRequest, SystemOneResponse } from 'systemone-judge/core';
import { configureOutputs, type OutputParameters, type RouteBy } from '../helpers/outputs';
import { buildQuestions, QuestionParameterError, type QuestionParameter } from '../helpers/questions';
import { readState, StateParameterError, type StateFormat } from '../helpers/state';
import { describeErrorBody, postSystemOne, readSystemOneCredential } from '../helpers/systemOneClient';

export async function judgeItems(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
  const items = this.getInputData();
  const outputCount = configureOutputs(this.getNode().parameters as OutputParameters).length;
  const outputs: INodeExecutionData[][] = Array.from({ length: outputCount }, () => []);
  const credential = await readSystemOneCredential(this);

  for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
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
      if (this.continueOnFail()) {
        outputs[0].push({ json: { error: (error as Error).message }, pairedItem: { item: itemIndex } });
        continue;
      }
      if (error instanceof NodeApiError || error instanceof NodeOperationError) throw error;
      throw new NodeOperationError(this.getNode(), error as Error, { itemIndex });
    }
  }
  return outputs;
}

function readRequest(context: IExecuteFunctions, itemIndex: number): SystemOneRequest {
  const model = String(context.getNodeParameter('model', itemIndex, '')).trim();
  if (model === '') throw new NodeOperationError(context.getNode(), 'Model: is empty', { itemIndex });
  const format = context.getNodeParameter('stateFormat', itemIndex, 'text') as StateFormat;
  const questionParameters = context.getNodeParameter('questions.question', itemIndex, []) as QuestionParameter[];
  try {
    const state = readState(context.getNodeParameter('state', itemIndex, ''), format);
    return { model, state, questions: buildQuestions(questionParameters) };
  } catch (error) {
    if (error instanceof QuestionParameterError || error instanceof StateParameterError) {
      throw new NodeOperationError(context.getNode(), error.message, { itemIndex });
    }
    throw error;
  }
}

/** The output index for this answer: 0 without routing. */
function pickOutput(context: IExecuteFunctions, itemIndex: number, response: SystemOneResponse): number {
  const routeBy = context.getNodeParameter('routeBy', itemIndex, 'none') as RouteBy;
  if (routeBy === 'none') return 0;
  const name = context.getNodeParameter('routeQuestion', itemIndex, '') as string;
  const answer: Answer | undefined = response.answers?.[name];
  if (!answer) {
    throw new NodeOperationError(context.getNode(), `Route Question Name: no question is named "${name}"`, {
      itemIndex,
    });
  }
  if (routeBy === 'noul') {
    if (answer.type !== 'noul') {
      throw new NodeOperationError(context.getNode(), `Route Question Name: "${name}" is not a yes/no question`, {
        itemIndex,
      });
    }
    const threshold = context.getNodeParameter('threshold', itemIndex, 0.5) as number;
    return answer.noul >= threshold ? 0 : 1;
  }
  if (answer.type !== 'choice') {
    throw new NodeOperationError(context.getNode(), `Route Question Name: "${name}" is not a choice question`, {
      itemIndex,
    });
  }
  // The outputs are the options as configured (configureOutputs), so look the choice up there.
  const questions = context.getNodeParameter('questions.question', itemIndex, []) as QuestionParameter[];
  const labels = (questions.find((question) => question.name === name)?.options?.option ?? []).map((option) => option.label);
  const output = labels.indexOf(answer.choice);
  if (output < 0) {
    throw new NodeOperationError(context.getNode(), `The judge chose "${answer.choice}", which is not an option`, {
      itemIndex,
    });
  }
  return output;
}
