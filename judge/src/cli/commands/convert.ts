// systemone-judge convert: rewrite a Hugging Face / Optimum decoder export into the shared-prefix layout.
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { convertToSharedPrefix } from '../../model-tools/convert-shared-prefix';
import { decodeModel, encodeModel } from '../../model-tools/onnx-proto';
import { UsageError, type Command } from '../command';

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

    const { model, layers } = convertToSharedPrefix(decodeModel(readFileSync(source)));
    mkdirSync(output, { recursive: true });
    writeFileSync(join(output, 'model.onnx'), encodeModel(model));
    // Tokenizer, config and external weight files (model.onnx_data) travel with the graph.
    for (const file of readdirSync(input)) {
      if (file === 'model.onnx' || !statSync(join(input, file)).isFile()) continue;
      copyFileSync(join(input, file), join(output, file));
    }
    process.stdout.write(`converted ${layers} layers to the shared-prefix layout: ${join(output, 'model.onnx')}\n`);
    return 0;
  },
};
