/**
 * Ask or search latency of this build against another one on the same data: the guard that a change to ask
 * (the fact lookup beside retrieval) or to search (the scoring model) costs nothing beyond noise. Loads
 * MEMORIES generated notes (bench/lib/notes.ts; a share of them as standard saves, so that the knowledge graph
 * has entities and facts to look up, the rest turbo, in ingest batches), compacts, then runs A B A B ...: each
 * run restarts the daemon with build A (--base) or B (this one) on the same home and times COUNT requests
 * (ask: model default, limit 10; search: the API's defaults, limit 10; fresh queries, after WARM_UP untimed
 * ones). Reports each run's p50/p95, the median p50 and p95 per build and the ratios B/A, with the load
 * average of each run.
 *
 *   git archive <commit> | tar -x -C /tmp/base && ln -s "$PWD/node_modules" /tmp/base/ && (cd /tmp/base && npm run build)
 *   node --import tsx bench/latency-ab.ts --base /tmp/base [--op ask|search] [--memories 10000] [--standard-share 0.1] [--pairs 2] [--count 100]
 */
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { startDaemon } from './lib/daemon.js';
import { createNoteGenerator } from './lib/notes.js';
import { progress, runPool } from './lib/pool.js';
import { isMain } from './lib/report.js';
import { latencyFigures, percentile, round, timed } from './lib/stats.js';

const WARM_UP = 5;
const INGEST_BATCH = 100;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      base: { type: 'string' },
      memories: { type: 'string', default: '10000' },
      pairs: { type: 'string', default: '2' },
      count: { type: 'string', default: '100' },
      op: { type: 'string', default: 'ask' },
      'standard-share': { type: 'string', default: '0.1' },
    },
  });
  const op = values.op;
  if (op !== 'ask' && op !== 'search') throw new Error('--op is ask or search');
  const standardShare = Number(values['standard-share']);
  if (!values.base) throw new Error('--base DIR (the build to compare with) is required');
  const total = Number(values.memories);
  const pairs = Number(values.pairs);
  const count = Number(values.count);
  const daemon = await startDaemon({ alternate: values.base, timeoutMs: 600_000 });
  try {
    const notes = createNoteGenerator(20240611);
    const bar = progress(`load ${total}`, total);
    // Every k-th note a standard save (extracted), the others turbo in ingest batches: embedding is the cost.
    const every = standardShare > 0 ? Math.max(1, Math.round(1 / standardShare)) : 0;
    const batches: { standard: boolean; notes: { content: string; tags: string[] }[] }[] = [];
    let turbo: { content: string; tags: string[] }[] = [];
    for (let index = 0; index < total; index++) {
      const note = notes.note();
      if (every > 0 && index % every === 0) batches.push({ standard: true, notes: [{ content: note.content, tags: note.tags }] });
      else turbo.push({ content: note.content, tags: note.tags });
      if (turbo.length === INGEST_BATCH || (index === total - 1 && turbo.length > 0)) {
        batches.push({ standard: false, notes: turbo });
        turbo = [];
      }
    }
    await runPool(batches, 4, async (batch) => {
      if (batch.standard) for (const note of batch.notes) await daemon.client.save(note);
      else await daemon.client.ingest({ items: batch.notes, async: false, turbo: true });
      for (let k = 0; k < batch.notes.length; k++) bar.tick();
    });
    bar.done();
    await daemon.compact();
    const queries = createNoteGenerator(11);
    const runs: { build: 'A' | 'B'; p50: number; p95: number; load: number }[] = [];
    for (let pair = 0; pair < pairs; pair++) {
      for (const build of ['A', 'B'] as const) {
        await daemon.use(build === 'A' ? 'alternate' : 'current');
        const request = async (): Promise<unknown> => (op === 'ask' ? daemon.client.ask({ query: queries.query() }) : daemon.client.search({ query: queries.query() }));
        for (let i = 0; i < WARM_UP; i++) await request();
        const times: number[] = [];
        for (let i = 0; i < count; i++) times.push((await timed(request)).ms);
        const figures = latencyFigures(times);
        runs.push({ build, p50: figures.p50, p95: figures.p95, load: round(loadavg()[0] ?? 0, 2) });
        console.log(`run ${runs.length}: ${build} p50 ${figures.p50} ms, p95 ${figures.p95} ms (load ${runs.at(-1)?.load})`);
      }
    }
    const median = (build: 'A' | 'B', key: 'p50' | 'p95') => percentile(runs.filter((run) => run.build === build).map((run) => run[key]), 50);
    for (const key of ['p50', 'p95'] as const) {
      console.log(`${op} median ${key}: A (base) ${round(median('A', key), 1)} ms, B (this build) ${round(median('B', key), 1)} ms, ratio B/A ${round(median('B', key) / median('A', key), 3)}`);
    }
  } finally {
    await daemon.stop();
  }
}

if (isMain(import.meta.url)) await main();
