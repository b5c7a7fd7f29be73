// Deliver Due Messages: claims the outbox messages due now and sends each (Telegram, or the signed callback
// through the outbound guard); one summary item.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { deliverDueMessages } from 'assistant-core';
import { asData, nowParameter, nowProperty } from '../../../shared/helpers/parameters';
import { sendOptions } from '../../transport/send';

const properties: INodeProperties[] = [nowProperty];

const displayOptions = { show: { operation: ['deliverDue'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(
  this: IExecuteFunctions,
  pool: Pool,
  itemIndex: number,
): Promise<IDataObject | IDataObject[]> {
  const report = await deliverDueMessages(pool, nowParameter(this, itemIndex), await sendOptions(this));
  return asData({ ...report, failures: report.failed + report.unknown });
}
