// Optional, for voice messages: an OpenAI-compatible speech-to-text endpoint (OpenAI, Groq, a local whisper server,
// …). Requests go to <Base URL>/audio/transcriptions. Without a base URL voice notes get a one-sentence answer on how
// to set this up (docs/VOICE.md).
import type { ICredentialType, INodeProperties } from 'n8n-workflow';

export class AssistantTranscriptionApi implements ICredentialType {
  name = 'assistantTranscriptionApi';

  displayName = 'Assistant Transcription API';

  icon = 'file:../nodes/AssistantChannel/assistantChannel.svg' as const;

  documentationUrl = 'https://platform.openai.com/docs/api-reference/audio/createTranscription';

  properties: INodeProperties[] = [
    {
      displayName: 'Base URL',
      name: 'baseUrl',
      type: 'string',
      default: '',
      placeholder: 'https://api.openai.com/v1',
      description: 'The API root including the version; empty: voice messages are not transcribed',
    },
    {
      displayName: 'API Key',
      name: 'apiKey',
      type: 'string',
      typeOptions: { password: true },
      default: '',
      description: 'Sent as a Bearer token; leave empty for a local server without keys',
    },
    {
      displayName: 'Model',
      name: 'model',
      type: 'string',
      default: 'whisper-1',
      description: 'e.g. whisper-1 or gpt-4o-mini-transcribe',
    },
  ];
}
