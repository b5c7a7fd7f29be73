// A user's proactive preferences: time zone, quiet hours (own, off, or the instance default) and briefing time.
import { describe, expect, it } from 'vitest';
import * as assistant from '../../src';
import { useAssistantDatabase } from '../database';
import { createUser, expectFieldError } from '../helpers';

const db = useAssistantDatabase();

describe('preferences', () => {
  it('falls back to the instance quiet hours until the user sets their own or turns them off', async () => {
    await assistant.updateInstanceSettings(db.pool, { quietHours: '22:00-07:00' });
    const userId = await createUser(db.pool, 'prefs');
    expect((await assistant.getUserPreferences(db.pool, userId)).quietHours).toEqual({ start: '22:00', end: '07:00' });
    await assistant.updateUserPreferences(db.pool, userId, { quietHours: '23:30–6:15' });
    expect((await assistant.getUserPreferences(db.pool, userId)).quietHours).toEqual({ start: '23:30', end: '06:15' });
    const off = await assistant.updateUserPreferences(db.pool, userId, { quietHours: 'off' });
    expect(off.quietHours).toBeNull();
    await assistant.updateInstanceSettings(db.pool, { quietHours: 'off' });
  });

  it('stores a briefing time and a time zone; bad values name their field', async () => {
    const userId = await createUser(db.pool, 'prefs');
    const prefs = await assistant.updateUserPreferences(db.pool, userId, {
      briefingTime: '7:30',
      timeZone: 'America/New_York',
    });
    expect(prefs).toMatchObject({ briefingTime: '07:30', timeZone: 'America/New_York' });
    expect((await assistant.updateUserPreferences(db.pool, userId, { briefingTime: 'off' })).briefingTime).toBeNull();
    await expectFieldError(
      () => assistant.updateUserPreferences(db.pool, userId, { briefingTime: '25:00' }),
      'briefing_time',
    );
    await expectFieldError(
      () => assistant.updateUserPreferences(db.pool, userId, { timeZone: 'Mars/Base' }),
      'time_zone',
    );
    await expectFieldError(
      () => assistant.updateUserPreferences(db.pool, userId, { quietHours: '22:00' }),
      'quiet_hours',
    );
    await expectFieldError(() => assistant.updateUserPreferences(db.pool, userId, {}), 'time_zone');
  });

  it('stores a locale (BCP 47, canonicalised) beside the time zone; a bad one names locale', async () => {
    const userId = await createUser(db.pool, 'prefs');
    expect((await assistant.getUserPreferences(db.pool, userId)).locale).toBe('en');
    const prefs = await assistant.updateUserPreferences(db.pool, userId, { locale: 'pt-br' });
    expect(prefs).toMatchObject({ locale: 'pt-BR', timeZone: 'UTC' });
    expect((await assistant.getUserSettings(db.pool, userId)).locale).toBe('pt-BR');
    await expectFieldError(() => assistant.updateUserPreferences(db.pool, userId, { locale: 'Klingon!' }), 'locale');
    expect((await assistant.getUserPreferences(db.pool, userId)).locale).toBe('pt-BR');
  });

  it('instance proactive settings are validated', async () => {
    await expectFieldError(
      () => assistant.updateInstanceSettings(db.pool, { heartbeatIntervalSeconds: 30 }),
      'heartbeatIntervalSeconds',
    );
    const updated = await assistant.updateInstanceSettings(db.pool, {
      heartbeatIntervalSeconds: 600,
      deliveryMaxAttempts: 3,
    });
    expect(updated).toMatchObject({ heartbeatIntervalSeconds: 600, deliveryMaxAttempts: 3, deliveryRetrySeconds: 30 });
    await assistant.updateInstanceSettings(db.pool, { heartbeatIntervalSeconds: 300, deliveryMaxAttempts: 8 });
  });
});
