// Saved executions of a user: found by the user id in their data; running and waiting ones are left alone.
import { describe, expect, it } from 'vitest';
import { executionsOfUser } from '../../src';

const user = '6b1f2c3d-0000-4000-8000-00000000abcd';

describe('executionsOfUser', () => {
  it('finds the executions whose data mentions the user, whatever the case, and skips unfinished ones', () => {
    const executions = [
      { id: 1, status: 'error', data: { resultData: { runData: { 'Turn to Run': [{ user_id: user }] } } } },
      { id: 2, status: 'success', data: { other: '6b1f2c3d-0000-4000-8000-00000000ffff' } },
      { id: '3', status: 'running', data: { user_id: user } },
      { id: 4, status: 'crashed', data: { note: user.toUpperCase() } },
    ];
    expect(executionsOfUser(executions, user)).toEqual(['1', '4']);
  });

  it('refuses what is not a user id (an empty id would match everything)', () => {
    expect(() => executionsOfUser([], '')).toThrow(/^userId: /);
  });
});
