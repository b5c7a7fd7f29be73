// How every node reports a failed item. A FieldError (the assistant's AssistantInputError and
// AssistantNotFoundError, the Judge's QuestionParameterError and StateParameterError, …) becomes a
// NodeOperationError naming the field and the item; with "Continue On Fail" the item becomes {error, field?}.
import {
  NodeApiError,
  NodeOperationError,
  type IDataObject,
  type IExecuteFunctions,
  type INode,
  type INodeExecutionData,
} from 'n8n-workflow';
import { FieldError } from 'systemone-judge/core';

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** The error n8n shows for a failed item: n8n's own errors as they are, a FieldError naming its field. */
export function toNodeError(node: INode, error: unknown, itemIndex: number): NodeOperationError | NodeApiError {
  if (error instanceof NodeOperationError || error instanceof NodeApiError) return error;
  return new NodeOperationError(node, messageOf(error), {
    itemIndex,
    description: error instanceof FieldError ? `Check the "${error.field}" parameter.` : undefined,
  });
}

/** The JSON of a failed item under "Continue On Fail": {error}, and the field when one is to blame. */
export function errorJson(error: unknown): IDataObject {
  const json: IDataObject = { error: messageOf(error) };
  if (error instanceof FieldError) json.field = error.field;
  return json;
}

/**
 * A failed item: with "Continue On Fail" the error item paired to it (for the caller to output), otherwise
 * the error is thrown as toNodeError made it. The item carries the error itself too, so that a node set to
 * "Continue (using error output)" routes it to its error output (n8n does so for items with `error`).
 */
export function failedItem(context: IExecuteFunctions, error: unknown, itemIndex: number): INodeExecutionData {
  if (context.continueOnFail()) {
    return {
      json: errorJson(error),
      error: toNodeError(context.getNode(), error, itemIndex),
      pairedItem: { item: itemIndex },
    };
  }
  throw toNodeError(context.getNode(), error, itemIndex);
}

/**
 * A failure before any item could run (e.g. the database is unreachable): with "Continue On Fail" every item fails
 * with it (so an error output gets them all), otherwise it is thrown.
 */
export function failAllItems(context: IExecuteFunctions, error: unknown): INodeExecutionData[][] {
  return [context.getInputData().map((_item, itemIndex) => failedItem(context, error, itemIndex))];
}
