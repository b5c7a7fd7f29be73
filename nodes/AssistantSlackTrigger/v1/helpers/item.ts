// What the trigger hands the workflow for one Slack payload: a message (a DM, a mention, a button's answer) as one
// item, or nothing (the bot's own messages, edits, chatter; a malformed payload, logged with its field).
import type { IDataObject } from 'n8n-workflow';
import { parseSlackPayload } from 'assistant-core';

export function slackTriggerItem(payload: Record<string, unknown>, log: (line: string) => void): IDataObject | null {
  const parsed = parseSlackPayload(payload);
  if (parsed.kind === 'ignored') return null;
  if (parsed.kind === 'refused') {
    log(`Slack payload not taken: ${parsed.refusal.message}`);
    return null;
  }
  const { message } = parsed;
  const slack = (message.metadata.slack ?? {}) as Record<string, unknown>;
  const fromButton = typeof slack.action_id === 'string';
  const channel = String(slack.channel ?? '');
  const thread = typeof slack.thread_ts === 'string' ? slack.thread_ts : undefined;
  return {
    channel: 'slack',
    externalId: message.externalId,
    sessionId: message.sessionId,
    text: message.text,
    // A button carries the question it answers; a reply in a thread names the message it replies to.
    ...(fromButton && message.replyTo ? { questionId: message.replyTo } : {}),
    ...(!fromButton && message.replyTo ? { replyToMessageId: message.replyTo } : {}),
    replyTarget:
      typeof slack.reply_target === 'string' ? slack.reply_target : thread ? `${channel}/${thread}` : channel,
    ...(message.file ? { file: message.file as unknown as IDataObject } : {}),
    metadata: message.metadata as IDataObject,
  };
}
