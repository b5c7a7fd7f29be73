// The node's outputs follow its operation. Must stay self-contained: n8n evaluates this function's source text
// (`outputs: ={{(fn)($parameter)}}`) in the editor and the backend.

export interface OutputDescription {
  type: 'main';
  displayName: string;
}

export function configureOutputs(parameters: { operation?: string }): OutputDescription[] {
  const main = (displayName: string): OutputDescription => ({ type: 'main', displayName });
  if (parameters.operation === 'checkTelegramUpdate') return [main('Accepted'), main('Refused')];
  if (parameters.operation === 'admitSender') return [main('Admitted'), main('Stranger')];
  if (parameters.operation === 'answerTurn') return [main('Webhook')];
  if (parameters.operation === 'startTyping') return [main('Typing')];
  if (parameters.operation === 'voiceToText') return [main('Text'), main('Reply Instead')];
  if (parameters.operation === 'formatReply' || parameters.operation === 'describeFailure')
    return [main('Webhook'), main('Telegram')];
  return [main('Accepted'), main('Rejected')];
}
