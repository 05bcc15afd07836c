/**
 * `npm run bench -- --only fuzz [--quick]`: the property tests of bad input (test/http/properties.test.ts)
 * with many more runs than `npm test` allows, under several seeds: every route of the OpenAPI document gets
 * MEM_FUZZ_RUNS hostile requests per seed. Passes when no request got a 5xx, a non-envelope error, or no
 * answer, and the owner's data was unchanged; a failure prints fast-check's counterexample and its seed.
 */
import { join } from 'node:path';
import { execa } from 'execa';
import type { BenchResult } from './lib/report.js';
import { REPO_ROOT } from './lib/daemon.js';

export async function runFuzz(options: { quick: boolean }): Promise<BenchResult> {
  const runs = options.quick ? 50 : 300;
  const seeds = options.quick ? [22] : [22, 1, 2026];
  const rows: (string | number)[][] = [];
  const failures: string[] = [];
  const started = performance.now();
  for (const seed of seeds) {
    const begun = performance.now();
    const run = await execa(process.execPath, [join(REPO_ROOT, 'node_modules/vitest/vitest.mjs'), 'run', 'test/http/properties.test.ts'], {
      cwd: REPO_ROOT,
      env: { MEM_FUZZ_RUNS: String(runs), MEM_FUZZ_SEED: String(seed), NO_COLOR: '1' },
      reject: false,
      all: true,
    });
    const seconds = Math.round((performance.now() - begun) / 100) / 10;
    rows.push([seed, runs, run.exitCode === 0 ? 'pass' : 'FAIL', seconds]);
    if (run.exitCode !== 0) failures.push(`seed ${seed}:\n${String(run.all).slice(-4000)}`);
  }
  return {
    name: 'fuzz',
    quick: options.quick,
    seconds: (performance.now() - started) / 1000,
    figures: { runsPerRoute: runs, seeds, passed: failures.length === 0, failures },
    tables: [{ title: 'Property tests of bad input, every route', header: ['seed', 'runs per route', 'result', 'seconds'], rows }],
    notes: failures.length === 0 ? [] : failures,
  };
}
