// Click: clicks an element of the page by its ref, waits for what it loads, and returns the page as it is then. With
// Check the Form, it clicks only when the element still sends the form that was approved (Click Target looked at it).
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { AssistantInputError } from 'assistant-core';
import type { BrowserClient } from 'assistant-core/browser';

import { parameter } from '../../../shared/helpers/parameters';
import { deadlineProperty } from '../../../shared/helpers/runLimit';
import { requireRef } from '../helpers/ref';
import { stepResult } from '../helpers/stepResult';
import { taskStep } from '../helpers/taskStep';
import { refProperty, userIdProperty } from './common.descriptions';

const properties: INodeProperties[] = [
  userIdProperty,
  refProperty,
  deadlineProperty,
  {
    displayName: 'Check the Form',
    name: 'checkForm',
    type: 'boolean',
    default: false,
    description: 'Whether to click only when the element still sends the expected form (none when it is empty)',
  },
  {
    displayName: 'Expected Form',
    name: 'expectForm',
    type: 'string',
    default: '',
    placeholder: 'e.g. POST https://example.com/checkout',
    description: "The form the click was approved to send, as Click Target's form_signature; empty for none",
    displayOptions: { show: { checkForm: [true] } },
  },
];

const displayOptions = { show: { operation: ['click'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(
  this: IExecuteFunctions,
  browser: BrowserClient,
  itemIndex: number,
): Promise<IDataObject> {
  const user = parameter(this, 'userId', itemIndex) as string;
  const ref = requireRef(parameter(this, 'ref', itemIndex));
  const expectForm = parameter(this, 'checkForm', itemIndex) === true ? expectedForm(this, itemIndex) : undefined;
  return stepResult(
    await taskStep(this, browser, user, itemIndex, (signal) =>
      browser.session.click({ user, ref, ...(expectForm === undefined ? {} : { expectForm }) }, signal),
    ),
    `Clicked [${ref}].`,
  );
}

function expectedForm(context: IExecuteFunctions, itemIndex: number): string {
  const given = parameter(context, 'expectForm', itemIndex) ?? '';
  if (typeof given !== 'string')
    throw new AssistantInputError('expectForm', 'must be a form ("POST https://…") or empty');
  return given.trim();
}
