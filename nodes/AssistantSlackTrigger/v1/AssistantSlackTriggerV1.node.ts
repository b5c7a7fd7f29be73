import {
  NodeConnectionTypes,
  NodeOperationError,
  type INodeType,
  type INodeTypeBaseDescription,
  type INodeTypeDescription,
  type ITriggerFunctions,
  type ITriggerResponse,
} from 'n8n-workflow';
import { SlackSocketMode } from 'assistant-core';

import { slackTriggerItem } from './helpers/item';

const SLACK_APP_CREDENTIAL = 'assistantSlackAppApi';

interface SlackAppCredential {
  appToken?: string;
  apiUrl?: string;
}

export class AssistantSlackTriggerV1 implements INodeType {
  description: INodeTypeDescription;

  constructor(baseDescription: INodeTypeBaseDescription) {
    this.description = {
      ...baseDescription,
      version: 1,
      defaults: { name: 'Assistant Slack Trigger' },
      inputs: [],
      outputs: [NodeConnectionTypes.Main],
      credentials: [{ name: SLACK_APP_CREDENTIAL, required: true }],
      properties: [
        {
          displayName:
            "Connects over Slack's Socket Mode with the credential's App-Level Token: DMs to the app, mentions of it and clicks on its buttons start the workflow",
          name: 'notice',
          type: 'notice',
          default: '',
        },
      ],
    };
  }

  async trigger(this: ITriggerFunctions): Promise<ITriggerResponse> {
    const credential = await this.getCredentials<SlackAppCredential>(SLACK_APP_CREDENTIAL);
    const appToken = (credential.appToken ?? '').trim();
    if (!appToken.startsWith('xapp-')) {
      throw new NodeOperationError(this.getNode(), 'appToken: must be the app-level token (xapp-…)', {
        description: 'Basic Information → App-Level Tokens, with the connections:write scope',
      });
    }
    const log = (line: string) => this.logger.info(`Assistant Slack Trigger: ${line}`);
    const socket = new SlackSocketMode({
      apiUrl: (credential.apiUrl ?? '').trim() || 'https://slack.com/api',
      appToken,
      log,
      onPayload: (payload) => {
        const item = slackTriggerItem(payload, log);
        if (item) this.emit([this.helpers.returnJsonArray([item])]);
      },
      onStopped: (reason) => this.emitError(new NodeOperationError(this.getNode(), reason)),
    });
    try {
      await socket.start();
    } catch (error) {
      throw new NodeOperationError(this.getNode(), (error as Error).message);
    }
    return { closeFunction: async () => await socket.stop() };
  }
}
