/**
 * Runs `worker` over `items` with at most `concurrency` calls in flight (results in input order). The first
 * failure stops handing out new items and is rethrown once the calls already in flight have settled.
 */
export async function runPool<T, R>(
  items: readonly T[],
  concurrency: number,
  worker: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const failures: unknown[] = [];
  const lane = async () => {
    while (failures.length === 0 && next < items.length) {
      const index = next++;
      try {
        results[index] = await worker(items[index] as T, index);
      } catch (error) {
        failures.push(error);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, lane));
  if (failures.length > 0) throw failures[0];
  return results;
}

/**
 * Progress on stderr: a line rewritten every 2 s on a terminal, a new line every 15 s otherwise (logs).
 */
export function progress(label: string, total: number): { tick(): void; done(): void } {
  const tty = Boolean(process.stderr.isTTY);
  const everyMs = tty ? 2000 : 15_000;
  let done = 0;
  let last = Date.now();
  const print = (final: boolean) => {
    const line = `  ${label}: ${done}/${total}`;
    if (tty) process.stderr.write(`\r${line}${final ? '\n' : ''}`);
    else process.stderr.write(`${line}\n`);
  };
  return {
    tick() {
      done += 1;
      const now = Date.now();
      if (now - last >= everyMs) {
        last = now;
        print(false);
      }
    },
    done() {
      print(true);
    },
  };
}
