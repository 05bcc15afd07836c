/**
 * Progress of long work on stderr: a redrawn bar on a terminal, plain lines otherwise (one per 10% step, so
 * logs stay short). Silent with --quiet or --json.
 */
export class Progress {
  private lastStep = -1;
  private drawn = false;

  constructor(
    private readonly label: string,
    private readonly enabled: boolean,
    private readonly stream: NodeJS.WriteStream = process.stderr,
  ) {}

  update(done: number, total: number, extra = ''): void {
    if (!this.enabled) return;
    const ratio = total === 0 ? 1 : Math.min(1, done / total);
    const percent = Math.floor(ratio * 100);
    if (this.stream.isTTY) {
      const width = 28;
      const filled = Math.round(ratio * width);
      const bar = '█'.repeat(filled) + '░'.repeat(width - filled);
      this.stream.write(`\r${this.label} ${bar} ${String(percent).padStart(3)}% ${done}/${total}${extra ? ` ${extra}` : ''}\u001b[K`);
      this.drawn = true;
      return;
    }
    const step = Math.floor(percent / 10);
    if (step === this.lastStep) return;
    this.lastStep = step;
    this.stream.write(`${this.label}: ${percent}% (${done}/${total})${extra ? ` ${extra}` : ''}\n`);
  }

  done(): void {
    if (this.enabled && this.drawn) this.stream.write('\n');
  }
}
