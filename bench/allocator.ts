/**
 * The daemon's glibc allocator settings (src/cli/allocator.ts) against other values, at one store size
 * (issue #23). For each variant, a GLIBC_TUNABLES value given to the daemon on top of its own settings
 * ("" for none: the daemon as shipped), a real daemon on `--size` memories:
 *
 * 1. RSS after loading. The memories carry random unit vectors through POST /v1/import, so 100k load in
 *    about three minutes instead of the ~17 the embedder takes; what the allocator does depends on the
 *    sizes of LanceDB's buffers (how many passages a search reads), not on what the vectors mean.
 * 2. Searches alone, one at a time (semantic and hybrid in turn): the daemon's CPU ms and minor page faults
 *    per search (/proc/<pid>/stat).
 * 3. The concurrent mix of scale.ts with `--clients` clients for 20 s: requests per second and the daemon's
 *    CPU ms per request; RSS at its end, and again 75 s later (at rest).
 *
 * The variants run in turn, `--rounds` times (A B A B), each on a new daemon and home loaded alike.
 *
 *   node --import tsx bench/allocator.ts [--size 1000] [--rounds 2] [--clients 16] [--variants ",glibc.malloc.mmap_threshold=33554432"]
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { memoryPassages } from '../src/core/chunking.js';
import { deriveTitle } from '../src/core/memory-service.js';
import { startDaemon } from './lib/daemon.js';
import { cpuSeconds, settle } from './load.js';
import { createNoteGenerator } from './lib/notes.js';
import { finishStandalone, isMain, measure, type BenchResult } from './lib/report.js';
import { round } from './lib/stats.js';
import { concurrency, createMemoryStream, load, type Generated } from './scale.js';

const SEED = 20261121;
const SEARCHES = 80;
const MIX_SECONDS = 20;
const REST_MS = 75_000;

/** Minor page faults of the process so far (/proc/<pid>/stat). */
function minorFaults(pid: number): number {
  const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(text.slice(text.lastIndexOf(')') + 2).split(' ')[7]);
}
const cpuMs = (pid: number) => cpuSeconds(pid) * 1000;

/** Each memory's passages as the daemon cuts them, with a seeded random unit vector each (base64 float32). */
function randomVectors(items: readonly Generated[]): Map<string, { seq: number; text: string; b64: string }[]> {
  let state = SEED;
  const next = () => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state / 0x7fffffff - 0.5;
  };
  const vector = () => {
    const values = new Float32Array(512);
    let norm = 0;
    for (let i = 0; i < values.length; i++) {
      values[i] = next();
      norm += (values[i] as number) ** 2;
    }
    for (let i = 0; i < values.length; i++) values[i] = (values[i] as number) / Math.sqrt(norm);
    return Buffer.from(values.buffer).toString('base64');
  };
  return new Map(items.map((item) => [item.id, memoryPassages(item.content, deriveTitle(item.content), '', '').map((passage) => ({ seq: passage.seq, text: passage.text, b64: vector() }))]));
}

interface VariantRun {
  readonly variant: string;
  readonly round: number;
  readonly rssLoadedMb: number;
  readonly searchCpuMs: number;
  readonly searchFaults: number;
  readonly mixRequestsPerSecond: number;
  readonly mixCpuMsPerRequest: number;
  readonly rssAfterMixMb: number;
  readonly rssAtRestMb: number;
  readonly loadAverage: number;
}

async function runVariant(variant: string, round_: number, size: number, clients: number): Promise<VariantRun> {
  const stream = createMemoryStream(SEED);
  const items = Array.from({ length: size }, () => stream());
  const daemon = await startDaemon({ timeoutMs: 1_800_000, env: variant ? { GLIBC_TUNABLES: variant } : {} });
  try {
    await load(daemon, items, randomVectors(items) as never);
    await daemon.compact();
    const rssLoadedMb = daemon.rssMb();
    const queries = createNoteGenerator(SEED + 7);
    await settle(daemon);
    for (let i = 0; i < 5; i++) await daemon.client.search({ query: queries.query(), limit: 10 });
    const pid = daemon.pid();
    const cpuBefore = cpuMs(pid);
    const faultsBefore = minorFaults(pid);
    for (let i = 0; i < SEARCHES; i++) await daemon.client.search({ query: queries.query(), limit: 10, hybrid: i % 2 === 0 });
    const searchCpuMs = (cpuMs(pid) - cpuBefore) / SEARCHES;
    const searchFaults = (minorFaults(pid) - faultsBefore) / SEARCHES;
    const mixCpuBefore = cpuMs(pid);
    const started = performance.now();
    const figures = await concurrency(daemon, clients, MIX_SECONDS, createNoteGenerator(SEED + 5), createNoteGenerator(SEED + 11), items.map((item) => item.id));
    const seconds = (performance.now() - started) / 1000;
    const mixCpuMsPerRequest = (cpuMs(pid) - mixCpuBefore) / Math.max(1, figures.requests);
    const rssAfterMixMb = daemon.rssMb();
    await new Promise((resolve) => setTimeout(resolve, REST_MS));
    return {
      variant: variant || 'as shipped',
      round: round_,
      rssLoadedMb: round(rssLoadedMb, 0),
      searchCpuMs: round(searchCpuMs, 1),
      searchFaults: round(searchFaults, 0),
      mixRequestsPerSecond: round(figures.requests / seconds, 1),
      mixCpuMsPerRequest: round(mixCpuMsPerRequest, 1),
      rssAfterMixMb: round(rssAfterMixMb, 0),
      rssAtRestMb: round(daemon.rssMb(), 0),
      loadAverage: round(loadavg()[0] ?? Number.NaN, 2),
    };
  } finally {
    await daemon.stop();
  }
}

export async function runAllocatorBench(options: { size?: number; rounds?: number; clients?: number; variants?: readonly string[] } = {}): Promise<BenchResult> {
  const size = options.size ?? 1000;
  const rounds = options.rounds ?? 2;
  const clients = options.clients ?? 16;
  const variants = options.variants ?? ['', 'glibc.malloc.mmap_threshold=33554432'];
  const started = performance.now();
  const runs: VariantRun[] = [];
  for (let r = 1; r <= rounds; r++) {
    for (const variant of variants) {
      process.stderr.write(`  round ${r}: ${variant || 'as shipped'} on ${size} memories\n`);
      runs.push(await runVariant(variant, r, size, clients));
    }
  }
  return {
    name: 'allocator',
    quick: false,
    seconds: round((performance.now() - started) / 1000, 0),
    figures: { size, rounds, clients, runs },
    tables: [
      {
        title: `glibc allocator variants on ${size} memories (${clients} clients in the mix)`,
        header: ['variant', 'round', 'RSS loaded MB', 'search CPU ms', 'faults/search', 'mix req/s', 'mix CPU ms/request', 'RSS after mix', 'RSS at rest', 'load avg'],
        rows: runs.map((run) => [run.variant, run.round, run.rssLoadedMb, run.searchCpuMs, run.searchFaults, run.mixRequestsPerSecond, run.mixCpuMsPerRequest, run.rssAfterMixMb, run.rssAtRestMb, run.loadAverage]),
      },
    ],
    notes: ['Random unit vectors stand in for embeddings: the allocator sees the same buffer sizes.', 'The load generator runs on the same cores as the daemon.'],
  };
}

if (isMain(import.meta.url)) {
  const { values } = parseArgs({ options: { size: { type: 'string' }, rounds: { type: 'string' }, clients: { type: 'string' }, variants: { type: 'string' } } });
  const result = await measure(() =>
    runAllocatorBench({
      ...(values.size ? { size: Number(values.size) } : {}),
      ...(values.rounds ? { rounds: Number(values.rounds) } : {}),
      ...(values.clients ? { clients: Number(values.clients) } : {}),
      ...(values.variants !== undefined ? { variants: values.variants.split(',') } : {}),
    }),
  );
  finishStandalone(result);
}
