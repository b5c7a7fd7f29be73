// The Assistant Slack App credential: the bot token and Web API URL for sending, the owner's Slack user id for the
// gate. Read per execution; the tokens never leave this module except in the Authorization header.
import type { IExecuteFunctions, INodeCredentialDescription } from 'n8n-workflow';
import { AssistantInputError, type SlackBotConfig } from 'assistant-core';

export const SLACK_APP_CREDENTIAL = 'assistantSlackAppApi';

export const slackCredentials: INodeCredentialDescription[] = [{ name: SLACK_APP_CREDENTIAL, required: true }];

export interface SlackAppCredential {
  botToken?: string;
  appToken?: string;
  signingSecret?: string;
  ownerUserId?: string;
  apiUrl?: string;
}

export async function slackApp(context: IExecuteFunctions): Promise<SlackAppCredential> {
  return await context.getCredentials<SlackAppCredential>(SLACK_APP_CREDENTIAL);
}

/** The bot's sending settings; a token that is not a bot token is refused naming the field. */
export function slackBot(credential: SlackAppCredential): SlackBotConfig {
  const botToken = (credential.botToken ?? '').trim();
  if (!botToken.startsWith('xoxb-')) throw new AssistantInputError('botToken', 'must be the bot token (xoxb-…)');
  return { apiUrl: (credential.apiUrl ?? '').trim() || 'https://slack.com/api', botToken };
}
