// Runs every check in order (the tool-call round trip first: on Ollama it makes the gateway create the derived model
// whose window is read next; the recall path after the embeddings, whose dimensions it compares) and returns the
// verdict. Each call has its own time limit.
import { checkChat } from './chat';
import { checkEmbeddings } from './embeddings';
import { checkJudge } from './judge';
import { checkRecall } from './recall';
import type { DoctorSettings } from './settings';
import { checkSpeed, notMeasured } from './speed';
import { checkTranscription } from './transcription';
import { verdictOf, type DoctorVerdict } from './verdict';
import { checkWindow } from './window';

export interface DoctorOptions {
  /** Skips the speed probe. */
  quick: boolean;
  /** The limit for one model call (a first call may load the model); small calls get a fraction of it. */
  modelTimeoutMs?: number;
}

const SMALL_CALL_MS = 10_000;

export async function runDoctor(settings: DoctorSettings, options: DoctorOptions): Promise<DoctorVerdict> {
  const modelMs = options.modelTimeoutMs ?? 120_000;
  const smallMs = Math.min(SMALL_CALL_MS, modelMs);
  const chat = await checkChat(settings, modelMs);
  const window = chat.reachable ? await checkWindow(settings, smallMs) : null;
  const speed =
    options.quick || !window
      ? notMeasured()
      : await checkSpeed(settings, { ollama: window.ollama, model: window.servedModel }, modelMs);
  const [judge, embeddings, transcription] = await Promise.all([
    checkJudge(settings, smallMs),
    checkEmbeddings(settings, modelMs),
    checkTranscription(settings, modelMs),
  ]);
  const recall = await checkRecall(settings, embeddings, smallMs);
  return verdictOf({ chatModel: settings.chatModel, chat, window, speed, judge, embeddings, transcription, recall });
}
