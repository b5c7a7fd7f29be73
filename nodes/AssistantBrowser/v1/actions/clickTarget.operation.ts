// Click Target: what a click on an element would send, without clicking: the form its submit button sends (method,
// where to, the fields that hold a value) and whether that is a sign-in with a secret the assistant typed. The click
// tool's workflow passes it to the approval gate, then clicks with the form that was approved (Click's Expect Form).
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { formSignature, type BrowserClient } from 'assistant-core/browser';

import { parameter } from '../../../shared/helpers/parameters';
import { deadlineProperty } from '../../../shared/helpers/runLimit';
import { requireRef } from '../helpers/ref';
import { taskStep } from '../helpers/taskStep';
import { refProperty, userIdProperty } from './common.descriptions';

const properties: INodeProperties[] = [userIdProperty, refProperty, deadlineProperty];

const displayOptions = { show: { operation: ['clickTarget'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(
  this: IExecuteFunctions,
  browser: BrowserClient,
  itemIndex: number,
): Promise<IDataObject> {
  const user = parameter(this, 'userId', itemIndex) as string;
  const ref = requireRef(parameter(this, 'ref', itemIndex));
  const { form } = await taskStep(this, browser, user, itemIndex, (signal) =>
    browser.session.clickTarget({ user, ref }, signal),
  );
  const signature = formSignature(form);
  return {
    ref,
    /** The form as the approval question names it: "POST https://… (fields: Street, Postal code)", or "". */
    sends_form: form ? `${signature}${form.fields.length > 0 ? ` (fields: ${form.fields.join(', ')})` : ''}` : '',
    form_signature: signature,
    sign_in: form?.signIn ?? false,
  };
}
