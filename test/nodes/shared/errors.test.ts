// The one place a failed item becomes an n8n error or, with "Continue On Fail", an error item.
import { NodeApiError, NodeOperationError, type INode } from 'n8n-workflow';
import { describe, expect, it } from 'vitest';
import { AssistantInputError, AssistantNotFoundError } from 'assistant-core';
import { FieldError } from 'systemone-judge/core';

import { QuestionParameterError } from '../../../nodes/Judge/v1/helpers/questions';
import { StateParameterError } from '../../../nodes/Judge/v1/helpers/state';
import { errorJson, failedItem, toNodeError } from '../../../nodes/shared/helpers/errors';
import { AssistantTasks } from '../../../nodes/AssistantTasks/AssistantTasks.node';
import { executeFunctions, nodeVersion } from '../helpers/executeFunctions';

const node = { name: 'Node', type: 'x', typeVersion: 1, position: [0, 0], parameters: {} } as unknown as INode;

describe('toNodeError', () => {
  it('names the field of every FieldError, whichever package threw it', () => {
    const errors = [
      new AssistantInputError('priority', 'must be one of low, medium, high, urgent'),
      new AssistantNotFoundError('taskId', 'no task 7'),
      new QuestionParameterError('Questions[1].Name', 'a question needs a name'),
      new StateParameterError('is empty'),
    ];
    for (const error of errors) {
      const nodeError = toNodeError(node, error, 3);
      expect(nodeError).toBeInstanceOf(NodeOperationError);
      expect(nodeError.message).toBe(error.message);
      expect(nodeError.description).toBe(`Check the "${error.field}" parameter.`);
      expect(nodeError.context.itemIndex).toBe(3);
    }
  });

  it("keeps n8n's own errors and gives any other error the item index", () => {
    const operation = new NodeOperationError(node, 'as is');
    const api = new NodeApiError(node, { message: 'down' });
    expect(toNodeError(node, operation, 0)).toBe(operation);
    expect(toNodeError(node, api, 0)).toBe(api);
    const other = toNodeError(node, new TypeError('boom'), 2);
    expect([other.message, other.description, other.context.itemIndex]).toEqual(['boom', undefined, 2]);
  });
});

describe('failedItem', () => {
  const tasks = nodeVersion(new AssistantTasks());

  it('with "Continue On Fail", gives {error, field?} paired to the item', () => {
    const context = executeFunctions(tasks, { continueOnFail: true });
    const fieldError = new FieldError('taskId', 'must be a positive integer');
    // The item carries the error too: a node set to "Continue (using error output)" routes it to that output.
    expect(failedItem(context, fieldError, 1)).toEqual({
      json: { error: 'taskId: must be a positive integer', field: 'taskId' },
      error: expect.any(NodeOperationError),
      pairedItem: { item: 1 },
    });
    expect(failedItem(context, fieldError, 1).error?.description).toBe('Check the "taskId" parameter.');
    expect(failedItem(context, new Error('plain'), 0)).toMatchObject({
      json: { error: 'plain' },
      pairedItem: { item: 0 },
    });
    expect(errorJson('a string')).toEqual({ error: 'a string' });
  });

  it('otherwise throws the error toNodeError makes', () => {
    const context = executeFunctions(tasks);
    expect(() => failedItem(context, new FieldError('title', 'is empty'), 4)).toThrow(NodeOperationError);
  });
});
