// The request log's default sink: one JSON line per request on stdout, written in batches. Under load many requests
// finish in one turn of the event loop; their lines go out in one write instead of one write (a system call when
// stdout is a file or a pipe) each. Lines are written at the end of the turn they were logged in, and on flush().
export class BatchedLineWriter {
  private lines: string[] = [];
  private scheduled?: NodeJS.Immediate;

  constructor(private readonly write: (text: string) => void = (text) => process.stdout.write(text)) {}

  /** Queues one line (without its newline). */
  push(line: string): void {
    this.lines.push(line);
    this.scheduled ??= setImmediate(() => this.flush());
  }

  /** Writes every queued line now. */
  flush(): void {
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = undefined;
    if (this.lines.length === 0) return;
    const text = this.lines.join('\n') + '\n';
    this.lines = [];
    this.write(text);
  }
}
