// Start Tick: the ledger row, the due reminders fired into the outbox (once, even with two ticks at once), and
// the jobs due now as items: always one 'deliver' item, plus 'heartbeat', one 'action' per due run, one 'briefing' per user
// and one 'check' per due check run.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { startTick } from 'assistant-core';
import { asData, nowParameter, nowProperty, parameter } from '../../../shared/helpers/parameters';

const properties: INodeProperties[] = [
  nowProperty,
  {
    displayName: 'Tick Seconds',
    name: 'tickSeconds',
    type: 'number',
    default: 60,
    description:
      'How often the trigger before this node fires, in seconds (60 for every minute). The ledger records each tick ' +
      'at this step, and a reminder fired more than two ticks after its due time is marked late.',
  },
];

const displayOptions = { show: { operation: ['startTick'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(
  this: IExecuteFunctions,
  pool: Pool,
  itemIndex: number,
): Promise<IDataObject | IDataObject[]> {
  const tickSeconds = parameter(this, 'tickSeconds', itemIndex) as number | undefined;
  const plan = await startTick(pool, nowParameter(this, itemIndex), { tickSeconds });
  const base = { tickId: plan.tickId, tickAt: plan.tickAt, now: plan.now };
  return [
    asData({ job: 'deliver', ...base, remindersQueued: plan.remindersQueued, lateReminders: plan.lateReminders }),
    ...(plan.heartbeatDue ? [asData({ job: 'heartbeat', ...base })] : []),
    ...plan.actions.map((run) => asData({ job: 'action', ...base, ...run })),
    ...plan.briefings.map((briefing) => asData({ job: 'briefing', ...base, ...briefing })),
    ...plan.checks.map((run) => asData({ job: 'check', ...base, ...run })),
  ];
}
