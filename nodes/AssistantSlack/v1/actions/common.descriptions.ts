// Parameters the Slack operations share.
import type { INodeProperties } from 'n8n-workflow';

/** Where a message goes: the inbound message's reply target ("<channel>" or "<channel>/<thread ts>"). */
export const targetProperty: INodeProperties = {
  displayName: 'Target',
  name: 'target',
  type: 'string',
  required: true,
  default: '={{ $json.replyTarget }}',
  description:
    "A channel or user ID, with a slash and the thread's ts to answer in a thread (the trigger's replyTarget)",
};
