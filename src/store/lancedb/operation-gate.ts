/**
 * Store operations that commit to several tables (a memory and its vectors; facts, edges and entities) run
 * through the gate; a backup closes it, waits for the operations in flight, and copies while none runs, so
 * a copy never holds half of one (a memory without its vectors). Operations never nest.
 */
export class OperationGate {
  private running = 0;
  /** Set while closed; resolves when the gate opens again. */
  private closed: Promise<void> | null = null;
  private drained: (() => void)[] = [];

  async run<T>(work: () => Promise<T>): Promise<T> {
    while (this.closed) await this.closed;
    this.running++;
    try {
      return await work();
    } finally {
      if (--this.running === 0) for (const resolve of this.drained.splice(0)) resolve();
    }
  }

  /** Runs `work` with no operation in flight; operations that arrive meanwhile wait. One at a time. */
  async exclusive<T>(work: () => Promise<T>): Promise<T> {
    while (this.closed) await this.closed;
    let open!: () => void;
    this.closed = new Promise<void>((resolve) => (open = resolve));
    try {
      if (this.running > 0) await new Promise<void>((resolve) => this.drained.push(resolve));
      return await work();
    } finally {
      this.closed = null;
      open();
    }
  }
}

/** Routes these methods of `target` through the gate (the store's multi-table operations). */
export function gated<T extends object>(target: T, gate: OperationGate, methods: readonly (keyof T & string)[]): T {
  const writable = target as Record<string, unknown>;
  for (const name of methods) {
    const method = writable[name] as (...args: unknown[]) => Promise<unknown>;
    writable[name] = (...args: unknown[]) => gate.run(() => method.apply(target, args));
  }
  return target;
}
