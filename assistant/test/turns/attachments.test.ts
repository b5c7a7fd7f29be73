// Files kept with a turn (browser screenshots) on a real Postgres 17: stored for the user's own turn only, returned
// with the answered turn, and bad input named.
import { describe, expect, it } from 'vitest';
import * as assistant from '../../src';
import { useAssistantDatabase } from '../database';
import { createUser, expectFieldError } from '../helpers';

const db = useAssistantDatabase();

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]).toString('base64');

describe('turn attachments', () => {
  it('keeps a file with the turn and returns it once the turn is answered', async () => {
    const userId = await createUser(db.pool, 'shots');
    const turn = await assistant.receiveMessage(db.pool, userId, { message: 'show me the page' });
    const file = { fileName: 'screenshot.png', mimeType: 'image/png', data: PNG };
    expect(await assistant.attachToTurn(db.pool, userId, turn.turnId, file)).toMatchObject({ bytes: 11 });
    expect((await assistant.getTurn(db.pool, userId, turn.turnId)).attachments).toBeUndefined();
    await assistant.finishTurn(db.pool, userId, turn.turnId, 'Here it is.');
    const answered = await assistant.getTurn(db.pool, userId, turn.turnId);
    expect(answered.attachments).toEqual([{ id: expect.any(Number), ...file }]);
  });

  it("refuses another user's turn and names bad input", async () => {
    const [alice, bob] = [await createUser(db.pool, 'alice'), await createUser(db.pool, 'bob')];
    const turn = await assistant.receiveMessage(db.pool, alice, { message: 'hi' });
    const file = { fileName: 'a.png', mimeType: 'image/png', data: PNG };
    await expectFieldError(() => assistant.attachToTurn(db.pool, bob, turn.turnId, file), 'turnId');
    await expectFieldError(
      () => assistant.attachToTurn(db.pool, alice, turn.turnId, { ...file, fileName: '../x' }),
      'fileName',
    );
    await expectFieldError(
      () => assistant.attachToTurn(db.pool, alice, turn.turnId, { ...file, mimeType: 'png' }),
      'mimeType',
    );
    await expectFieldError(() => assistant.attachToTurn(db.pool, alice, turn.turnId, { ...file, data: '%%%' }), 'data');
    const huge = Buffer.alloc(assistant.MAX_ATTACHMENT_BYTES + 1).toString('base64');
    await expectFieldError(() => assistant.attachToTurn(db.pool, alice, turn.turnId, { ...file, data: huge }), 'data');
  });
});
