// Start Tick: the ledger row, the due reminders fired into the outbox (once, even with two ticks at once), and
// the jobs due now as items: always one 'deliver' item, plus 'heartbeat', one 'action' per due run, one 'briefing' per user
// and one 'check' per due check run.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { startTick } from 'assistant-core';
import { asData, nowParameter, nowProperty } from '../../../shared/helpers/parameters';

const properties: INodeProperties[] = [nowProperty];

const displayOptions = { show: { operation: ['startTick'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(
  this: IExecuteFunctions,
  pool: Pool,
  itemIndex: number,
): Promise<IDataObject | IDataObject[]> {
  const plan = await startTick(pool, nowParameter(this, itemIndex));
  const base = { tickId: plan.tickId, tickAt: plan.tickAt, now: plan.now };
  return [
    asData({ job: 'deliver', ...base, remindersQueued: plan.remindersQueued, lateReminders: plan.lateReminders }),
    ...(plan.heartbeatDue ? [asData({ job: 'heartbeat', ...base })] : []),
    ...plan.actions.map((run) => asData({ job: 'action', ...base, ...run })),
    ...plan.briefings.map((briefing) => asData({ job: 'briefing', ...base, ...briefing })),
    ...plan.checks.map((run) => asData({ job: 'check', ...base, ...run })),
  ];
}
