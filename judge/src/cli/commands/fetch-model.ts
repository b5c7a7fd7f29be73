// systemone-judge fetch-model: download a model directory by URL, resuming broken transfers, checking SHA-256.
import { parseArgs } from 'node:util';
import {
  DEFAULT_HUB_ENDPOINT,
  REQUIRED_FILES,
  fetchHubModel,
  fetchModel,
  type FetchedFile,
} from '../../model-tools/fetch-model';
import { UsageError, type Command } from '../command';

export const fetchModelCommand: Command = {
  name: 'fetch-model',
  summary: 'download a model directory (model.onnx, tokenizer, config) with resume and checksums',
  usage:
    'fetch-model --repo <owner/name> --out <dir> [--revision main] [--model-file onnx/model.onnx] [--endpoint URL]\n' +
    '            [--sha256 <file>=<hex> …] [--token-env HF_TOKEN]\n' +
    '  A Hugging Face repo as it is laid out (tokenizer and config at the root, graphs under onnx/): the chosen graph\n' +
    '  is saved as model.onnx with its external data; checksums come from the repo tree (LFS SHA-256, git blob ids).\n' +
    'fetch-model --url <directory URL> --out <dir> [--file model.onnx …] [--sha256 <file>=<hex> …] [--token-env HF_TOKEN]\n' +
    '  Every file from one directory URL; checksums from --sha256 and a SHA256SUMS file there. Run again to resume.',
  async run(argv) {
    const { values } = parseArgs({
      args: argv,
      options: {
        url: { type: 'string' },
        repo: { type: 'string' },
        revision: { type: 'string' },
        'model-file': { type: 'string' },
        endpoint: { type: 'string' },
        out: { type: 'string' },
        file: { type: 'string', multiple: true },
        sha256: { type: 'string', multiple: true },
        'token-env': { type: 'string' },
      },
      strict: true,
    });
    if (!values.url && !values.repo)
      throw new UsageError(
        '--url is required: the URL of the model directory (or --repo owner/name for a Hugging Face repo)',
      );
    if (values.url && values.repo) throw new UsageError('--url and --repo exclude each other: give one');
    if (values.repo && values.file)
      throw new UsageError('--file is for --url; with --repo, choose the graph with --model-file');
    if (values.url && (values['model-file'] || values.revision || values.endpoint))
      throw new UsageError('--model-file, --revision and --endpoint are for --repo');
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
    const log = (line: string) => process.stderr.write(`${line}\n`);
    let files: FetchedFile[];
    if (values.repo) {
      const fetched = await fetchHubModel({
        repo: values.repo,
        revision: values.revision,
        endpoint: values.endpoint ?? process.env.HF_ENDPOINT ?? DEFAULT_HUB_ENDPOINT,
        modelFile: values['model-file'],
        outDir: values.out,
        sha256,
        headers,
        log,
      });
      files = fetched.files;
      process.stdout.write(`graph: ${fetched.plan.modelFile} (saved as model.onnx)\n`);
    } else {
      files = await fetchModel({
        baseUrl: values.url!,
        outDir: values.out,
        files: values.file?.length ? values.file : REQUIRED_FILES,
        sha256,
        headers,
        log,
      });
    }
    const unverified = files.filter((f) => !f.verified).map((f) => f.file);
    process.stdout.write(`fetched ${files.length} files into ${values.out}\n`);
    if (unverified.length) process.stderr.write(`warning: no checksum was given for ${unverified.join(', ')}\n`);
    return 0;
  },
};
