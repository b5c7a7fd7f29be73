// Forget Question: what the user is asked before Forget Everything (the text its check recognises).
import type { IDataObject, INodeProperties } from 'n8n-workflow';
import { FORGET_QUESTION } from 'assistant-core';

const properties: INodeProperties[] = [];

export const description = properties;

export async function execute(): Promise<IDataObject> {
  return { question: FORGET_QUESTION };
}
