// Fill: types into a field by its ref: a value the model gives, or a part (username or password) of a site login
// from the Assistant Site Logins credential, which the model names but never sees. A login is typed only on a page
// of its own site, and only for a user it belongs to (its `users`; the operator by default: read from Postgres).
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { AssistantInputError, holderOf } from 'assistant-core';
import { loginValue, parseSiteLogins, type BrowserClient } from 'assistant-core/browser';

import { parameter } from '../../../shared/helpers/parameters';
import { assistantDatabase } from '../../../shared/transport/postgres';
import { deadlineProperty } from '../../../shared/helpers/runLimit';
import { requireRef } from '../helpers/ref';
import { stepResult } from '../helpers/stepResult';
import { taskStep } from '../helpers/taskStep';
import { refProperty, userIdProperty } from './common.descriptions';

export const SITE_LOGINS_CREDENTIAL = 'assistantSiteLoginsApi';

const properties: INodeProperties[] = [
  userIdProperty,
  refProperty,
  deadlineProperty,
  {
    displayName: 'Value',
    name: 'value',
    type: 'string',
    default: '',
    description: 'What to type; leave empty to type a site login instead',
  },
  {
    displayName: 'Login',
    name: 'login',
    type: 'string',
    default: '',
    description: 'The name of a login in the Assistant Site Logins credential, to type instead of a value',
  },
  {
    displayName: 'Login Part',
    name: 'part',
    type: 'options',
    options: [
      { name: 'Password', value: 'password' },
      { name: 'Username', value: 'username' },
    ],
    default: 'password',
    description: 'Which part of the login to type',
  },
];

const displayOptions = { show: { operation: ['fill'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(
  this: IExecuteFunctions,
  browser: BrowserClient,
  itemIndex: number,
): Promise<IDataObject> {
  const user = parameter(this, 'userId', itemIndex) as string;
  const ref = requireRef(parameter(this, 'ref', itemIndex));
  const value = parameter(this, 'value', itemIndex);
  const login = parameter(this, 'login', itemIndex);
  const hasValue = typeof value === 'string' && value !== '';
  const hasLogin = typeof login === 'string' && login.trim() !== '';
  if (hasValue && hasLogin) throw new AssistantInputError('value', 'give either a value or a login, not both');
  if (!hasValue && !hasLogin) throw new AssistantInputError('value', 'give a value to type, or the name of a login');
  if (hasValue) {
    const page = await taskStep(this, browser, user, itemIndex, (signal) =>
      browser.session.fill({ user, ref, value: value as string }, signal),
    );
    return stepResult(page, `Typed into [${ref}].`);
  }
  let logins;
  try {
    logins = parseSiteLogins(
      (await this.getCredentials<{ logins?: string }>(SITE_LOGINS_CREDENTIAL, itemIndex)).logins,
    );
  } catch (error) {
    if (error instanceof AssistantInputError) throw error;
    throw new AssistantInputError('login', 'no site logins are set up (the Assistant Site Logins credential)');
  }
  const holder = await holderOf(await assistantDatabase(this), user);
  const secret = loginValue(logins, login, parameter(this, 'part', itemIndex), holder);
  const page = await taskStep(this, browser, user, itemIndex, (signal) =>
    browser.session.fill({ user, ref, value: secret.value, secret: true, sites: secret.sites }, signal),
  );
  return stepResult(page, `Typed ${secret.description} into [${ref}].`);
}
