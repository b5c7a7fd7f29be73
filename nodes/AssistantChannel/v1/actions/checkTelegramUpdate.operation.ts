// Check Telegram Update: normalise the update; the owner's text messages go to output 0 in the same shape as
// webhook requests (plus chatId); everything to answer without the agent goes to output 1 as {chatId, text}
// (Telegram HTML, escaped).
// Nothing from another chat is passed on, so nothing of theirs is stored.
import type { IExecuteFunctions, INodeExecutionData, JsonObject } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { poolConfigFromCredential, sharedPool, type PostgresCredential } from 'assistant-core';
import { isTelegramOwner } from 'assistant-core';
import { escapeHtml } from 'assistant-core';
import { normaliseTelegramUpdate } from 'assistant-core';

export const POSTGRES_CREDENTIAL = 'postgres';

export async function checkTelegramUpdate(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
  const accepted: INodeExecutionData[] = [];
  const refused: INodeExecutionData[] = [];
  const items = this.getInputData();
  for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
    const pairedItem = { item: itemIndex };
    const result = normaliseTelegramUpdate(items[itemIndex].json);
    if (result.kind === 'ignored') continue;
    const ownerOnly = this.getNodeParameter('allowedChats', itemIndex, 'owner') === 'owner';
    let allowed = !ownerOnly;
    if (ownerOnly) {
      try {
        const credential = await this.getCredentials<PostgresCredential>(POSTGRES_CREDENTIAL, itemIndex);
        allowed = await isTelegramOwner(sharedPool(poolConfigFromCredential(credential)), result.kind === 'message' ? result.request.chatId : result.chatId);
      } catch (error) {
        throw new NodeOperationError(this.getNode(), `Could not read the owner's chat id: ${(error as Error).message}`, { itemIndex });
      }
    }
    if (!allowed) {
      const chatId = result.kind === 'message' ? result.request.chatId : result.chatId;
      refused.push({ json: { chatId, text: escapeHtml(this.getNodeParameter('refusal', itemIndex) as string), parseMode: 'HTML' }, pairedItem });
    } else if (result.kind === 'unsupported') {
      refused.push({ json: { chatId: result.chatId, text: escapeHtml(`Sorry, ${result.reason}.`), parseMode: 'HTML' }, pairedItem });
    } else {
      accepted.push({ json: result.request as unknown as JsonObject, pairedItem });
    }
  }
  return [accepted, refused];
}
