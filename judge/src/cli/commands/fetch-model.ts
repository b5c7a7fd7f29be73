// systemone-judge fetch-model: download a model directory by URL, resuming broken transfers, checking SHA-256.
import { parseArgs } from 'node:util';
import { REQUIRED_FILES, fetchModel } from '../../model-tools/fetch-model';
import { UsageError, type Command } from '../command';

export const fetchModelCommand: Command = {
  name: 'fetch-model',
  summary: 'download a model directory (model.onnx, tokenizer, config) with resume and checksums',
  usage:
    'fetch-model --url <directory URL> --out <dir> [--file model.onnx …] [--sha256 <file>=<hex> …] [--token-env HF_TOKEN]\n' +
    '  Checksums come from --sha256 and from a SHA256SUMS file at the URL when it has one. Run again to resume.',
  async run(argv) {
    const { values } = parseArgs({
      args: argv,
      options: {
        url: { type: 'string' },
        out: { type: 'string' },
        file: { type: 'string', multiple: true },
        sha256: { type: 'string', multiple: true },
        'token-env': { type: 'string' },
      },
      strict: true,
    });
    if (!values.url) throw new UsageError('--url is required: the URL of the model directory');
    if (!values.out) throw new UsageError('--out is required: where to put the model directory');
    const sha256: Record<string, string> = {};
    for (const item of values.sha256 ?? []) {
      const eq = item.indexOf('=');
      if (eq <= 0) throw new UsageError(`--sha256 "${item}" is not <file>=<hex>`);
      sha256[item.slice(0, eq)] = item.slice(eq + 1);
    }
    const headers: Record<string, string> = {};
    const tokenEnv = values['token-env'];
    if (tokenEnv !== undefined) {
      const token = process.env[tokenEnv];
      if (!token) throw new UsageError(`--token-env: the environment variable ${tokenEnv} is not set`);
      headers.authorization = `Bearer ${token}`;
    }
    const files = await fetchModel({
      baseUrl: values.url,
      outDir: values.out,
      files: values.file?.length ? values.file : REQUIRED_FILES,
      sha256,
      headers,
      log: (line) => process.stderr.write(`${line}\n`),
    });
    const unverified = files.filter((f) => !f.verified).map((f) => f.file);
    process.stdout.write(`fetched ${files.length} files into ${values.out}\n`);
    if (unverified.length) process.stderr.write(`warning: no checksum was given for ${unverified.join(', ')}\n`);
    return 0;
  },
};
