/**
 * Ask latency of this build against another one on the same data: the guard that a change to ask (the fact
 * lookup beside retrieval) costs nothing beyond noise. Loads MEMORIES generated notes (bench/lib/notes.ts; a
 * tenth as standard saves, so that the knowledge graph has entities and facts to look up, the rest turbo),
 * compacts, then runs A B A B ...: each run restarts the daemon with build A (--base) or B (this one) on the
 * same home and times COUNT asks (model default, limit 10, fresh questions, after WARM_UP untimed ones). Reports
 * each run's p50/p95, the median p50 per build and the ratio B/A, with the load average before and after.
 *
 *   git archive <commit> | tar -x -C /tmp/base && ln -s "$PWD/node_modules" /tmp/base/ && (cd /tmp/base && npm run build)
 *
 * (npm run build: tsc and, since the CLI became a bundle, scripts/bundle-cli.mjs; bin/mem.js imports the bundle.)
 *   node --import tsx bench/ask-ab.ts --base /tmp/base [--memories 10000] [--pairs 2] [--count 100]
 */
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { startDaemon } from './lib/daemon.js';
import { createNoteGenerator } from './lib/notes.js';
import { progress, runPool } from './lib/pool.js';
import { isMain } from './lib/report.js';
import { latencyFigures, percentile, round, timed } from './lib/stats.js';

const WARM_UP = 5;
const STANDARD_SHARE = 0.1;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      base: { type: 'string' },
      memories: { type: 'string', default: '10000' },
      pairs: { type: 'string', default: '2' },
      count: { type: 'string', default: '100' },
    },
  });
  if (!values.base) throw new Error('--base DIR (the build to compare with) is required');
  const total = Number(values.memories);
  const pairs = Number(values.pairs);
  const count = Number(values.count);
  const daemon = await startDaemon({ alternate: values.base, timeoutMs: 600_000 });
  try {
    const notes = createNoteGenerator(20240611);
    const bar = progress(`load ${total}`, total);
    await runPool(
      Array.from({ length: total }, (_, index) => index),
      8,
      async (index) => {
        const note = notes.note();
        if (index % Math.round(1 / STANDARD_SHARE) === 0) await daemon.client.save({ content: note.content, tags: note.tags });
        else await daemon.client.turboSave({ content: note.content, tags: note.tags });
        bar.tick();
      },
    );
    bar.done();
    await daemon.compact();
    const queries = createNoteGenerator(11);
    const runs: { build: 'A' | 'B'; p50: number; p95: number; load: number }[] = [];
    for (let pair = 0; pair < pairs; pair++) {
      for (const build of ['A', 'B'] as const) {
        await daemon.use(build === 'A' ? 'alternate' : 'current');
        for (let i = 0; i < WARM_UP; i++) await daemon.client.ask({ query: queries.query() });
        const times: number[] = [];
        for (let i = 0; i < count; i++) times.push((await timed(() => daemon.client.ask({ query: queries.query() }))).ms);
        const figures = latencyFigures(times);
        runs.push({ build, p50: figures.p50, p95: figures.p95, load: round(loadavg()[0] ?? 0, 2) });
        console.log(`run ${runs.length}: ${build} p50 ${figures.p50} ms, p95 ${figures.p95} ms (load ${runs.at(-1)?.load})`);
      }
    }
    const median = (build: 'A' | 'B') => percentile(runs.filter((run) => run.build === build).map((run) => run.p50), 50);
    console.log(`median p50: A (base) ${round(median('A'), 1)} ms, B (this build) ${round(median('B'), 1)} ms, ratio B/A ${round(median('B') / median('A'), 3)}`);
  } finally {
    await daemon.stop();
  }
}

if (isMain(import.meta.url)) await main();
