// systemone-judge convert: rewrite a Hugging Face / Optimum decoder export into the shared-prefix layout.
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { detectLayout, layoutPath } from '../../backends/onnx/graph-layout';
import { ConvertError, convertToSharedPrefix, type ConvertResult } from '../../model-tools/convert-shared-prefix';
import { attentionRefusal } from '../../model-tools/attention-config';
import { decodeModel, encodeModel, externalDataFiles } from '../../model-tools/onnx-proto';
import { UsageError, type Command } from '../command';

/** The model's config.json, which says what its attention does (model-tools/attention-config.ts). */
function readConfig(dir: string): Record<string, unknown> {
  const file = join(dir, 'config.json');
  if (!existsSync(file)) {
    throw new UsageError(`--in: ${dir} has no config.json, which says what the model's attention does`);
  }
  let config: unknown;
  try {
    config = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new UsageError(`--in: ${file} is not JSON (${(error as Error).message})`);
  }
  if (!config || typeof config !== 'object' || Array.isArray(config)) {
    throw new UsageError(`--in: ${file} must be a JSON object`);
  }
  return config as Record<string, unknown>;
}

export const convert: Command = {
  name: 'convert',
  summary: 'rewrite an ONNX decoder export (with past) into the shared-prefix layout for the local backend',
  usage: 'convert --in <model dir> --out <new model dir>   (the other files of the directory are copied alongside)',
  async run(argv) {
    const { values } = parseArgs({
      args: argv,
      options: { in: { type: 'string' }, out: { type: 'string' } },
      strict: true,
    });
    if (!values.in) throw new UsageError('--in is required: the model directory holding model.onnx');
    if (!values.out) throw new UsageError('--out is required: the directory to write the converted model to');
    const input = resolve(values.in);
    const output = resolve(values.out);
    if (input === output) throw new UsageError('--out must differ from --in');
    const source = join(input, 'model.onnx');
    if (!existsSync(source)) throw new UsageError(`--in: ${input} has no model.onnx`);

    const decoded = decodeModel(readFileSync(source));
    // External weights (model.onnx_data) stay where they are: the converted graph refers to them by the same name,
    // and they are copied alongside below.
    for (const file of externalDataFiles(decoded)) {
      if (!existsSync(join(input, file)))
        throw new ConvertError(`model.onnx keeps its weights in ${file}, which is not in ${input}`);
    }
    const config = readConfig(input);
    let converted: ConvertResult;
    try {
      const refusal = attentionRefusal(config);
      if (refusal) {
        throw new ConvertError(
          `config.json ${refusal.field}: ${refusal.reason}; the shared-prefix layout attends to the whole prefix with ` +
            'plain attention, so it would answer differently from the model once a state is long enough',
        );
      }
      converted = convertToSharedPrefix(decoded);
    } catch (error) {
      if (!(error instanceof ConvertError)) throw error;
      // Say what the model gets without conversion, so the refusal is not a dead end.
      const initializers = new Set(decoded.graph.initializers.map((t) => t.name));
      const inputs = decoded.graph.inputs.map((i) => i.name).filter((n) => !initializers.has(n));
      let served: string;
      try {
        served = `served as it is, it gets the ${layoutPath(detectLayout(inputs).layout)}`;
      } catch (detect) {
        served = `it cannot be served as it is either: ${(detect as Error).message}`;
      }
      process.stderr.write(`systemone-judge convert: cannot convert ${source}: ${error.message}\n${served}\n`);
      return 1;
    }
    const { model, layers, notes } = converted;
    mkdirSync(output, { recursive: true });
    writeFileSync(join(output, 'model.onnx'), encodeModel(model));
    // Tokenizer, config and external weight files (model.onnx_data) travel with the graph.
    for (const file of readdirSync(input)) {
      if (file === 'model.onnx' || !statSync(join(input, file)).isFile()) continue;
      copyFileSync(join(input, file), join(output, file));
    }
    process.stdout.write(`converted ${layers} layers to the shared-prefix layout: ${join(output, 'model.onnx')}\n`);
    for (const note of notes) process.stdout.write(`${note}\n`);
    process.stdout.write(`served, it gets the ${layoutPath('shared-prefix')}\n`);
    return 0;
  },
};
