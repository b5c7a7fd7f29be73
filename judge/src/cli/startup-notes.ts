// What `serve` says at start besides the address: the playground's access, the calibration in use, and for local
// ONNX models which path each one gets and why.
import type { OnnxBackend } from '../backends/onnx';
import type { JudgeConfig } from '../config';
import type { JudgeServer } from '../server';

export function startupNotes(server: JudgeServer, config: JudgeConfig): string[] {
  const notes: string[] = [];
  const { playground } = server;
  if (playground.enabled) {
    const access = playground.open ? 'open without a key' : 'needs an API key';
    notes.push(`playground ${server.url}/playground (${access}: ${playground.reason})`);
  }
  notes.push(
    server.console.on
      ? `console ${server.url}/console (${server.console.reason})`
      : `console off (${server.console.reason})`,
  );
  if (config.calibration) {
    const { path, temperatures, models } = config.calibration;
    const list = Object.entries(temperatures).map(([type, t]) => `${type} ${t.toFixed(3)}`);
    notes.push(`calibration ${path} (temperatures: ${list.join(', ')})`);
    const served = new Set(server.engine.backend.models().map((m) => m.id));
    const others = models.filter((id) => !served.has(id));
    if (others.length > 0) {
      notes.push(`warning: the calibration was fit on ${others.join(', ')}, which this backend does not serve`);
    }
  }
  const backend = server.engine.backend;
  if (backend.kind === 'onnx') {
    const onnx = backend as OnnxBackend;
    for (const { id } of onnx.models()) notes.push(`model ${id}: ${onnx.loaded(id).path}`);
  }
  return notes;
}
