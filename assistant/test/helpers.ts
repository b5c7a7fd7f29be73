// Helpers shared by the assistant's database tests: a fresh user, and the check that an error names its field.
import type { Pool } from 'pg';
import { expect } from 'vitest';
import { AssistantInputError, AssistantNotFoundError, resolveIdentity } from '../src';

/** A new user behind a random API identity. */
export async function createUser(pool: Pool, name: string): Promise<string> {
  return (await resolveIdentity(pool, 'api', `${name}-${Math.random().toString(36).slice(2)}`)).userId;
}

/** Asserts that `work` fails with an input (or not-found) error naming `field`. */
export async function expectFieldError(
  work: () => Promise<unknown>,
  field: string,
  kind: 'input' | 'notFound' = 'input',
) {
  const error = await work().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, `expected an error naming ${field}`).toBeInstanceOf(
    kind === 'input' ? AssistantInputError : AssistantNotFoundError,
  );
  expect((error as AssistantInputError).field).toBe(field);
  expect((error as Error).message.startsWith(`${field}: `)).toBe(true);
}
