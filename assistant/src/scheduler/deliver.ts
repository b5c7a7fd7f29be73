// The delivery step every proactive workflow ends with: claim the outbox messages due now, send each on its channel,
// record each outcome (retries back off; the last attempt leaves a failed row with its error).
import type { Queryable } from '../storage/db';
import { claimDueMessages, recordSendOutcome, type OutboxMessage } from '../delivery/outbox';
import { sendMessage, type SendOptions } from '../delivery/send';
import { getInstanceSettings } from '../settings/settings';
import { requireDate } from '../schedule/zone';

export interface DeliveryReport {
  delivered: number;
  retrying: number;
  failed: number;
  unknown: number;
  messages: Array<Pick<OutboxMessage, 'id' | 'kind' | 'channel' | 'status' | 'attempts' | 'lastError'>>;
}

export async function deliverDueMessages(db: Queryable, nowInput: Date, options: SendOptions): Promise<DeliveryReport> {
  const now = requireDate(nowInput);
  const settings = await getInstanceSettings(db);
  const report: DeliveryReport = { delivered: 0, retrying: 0, failed: 0, unknown: 0, messages: [] };
  for (const message of await claimDueMessages(db, now)) {
    const outcome = await sendMessage(message, options);
    const after = await recordSendOutcome(db, message, outcome, {
      now: new Date(),
      maxAttempts: settings.deliveryMaxAttempts,
      retrySeconds: settings.deliveryRetrySeconds,
    });
    if (after.status === 'delivered') report.delivered++;
    else if (after.status === 'pending') report.retrying++;
    else if (after.status === 'unknown') report.unknown++;
    else report.failed++;
    report.messages.push({
      id: after.id,
      kind: after.kind,
      channel: after.channel,
      status: after.status,
      attempts: after.attempts,
      lastError: after.lastError,
    });
  }
  return report;
}
