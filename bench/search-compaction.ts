/**
 * What it costs to keep the tables searches read compact (issue #23): the store compacts the memories and
 * passages tables on their own after 20 commits to one of them (`compactSearchTables`), leaving the other
 * tables and the index builds to the full maintenance pass (`maintain`). At each size this loads the
 * memories in batches (512-d passages, as the built-in embedder's), runs one full pass, then A B A B rounds:
 * 20 single saves (20 commits to each search table), the searches on those fragments, then A = the search
 * tables' compaction or B = the full pass, each timed (wall and the process's CPU, every thread), and the
 * searches again. Then, at the smallest size, `--cycles` rounds of 20 saves each in three fresh stores: with
 * no compaction, with the search tables' compaction after each round, with the full pass after each round;
 * the search CPU every 10 rounds (do repeated compactions keep searches cheap, or do versions and index
 * deltas pile up instead?). Medians; `uptime` before and after. In-process, no daemon.
 *
 *   node --import tsx bench/search-compaction.ts [--sizes 1000,10000] [--rounds 4] [--cycles 40]
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { MemoryRecord } from '../src/core/types.js';
import { openLanceStore, type LanceStore } from '../src/store/lancedb/lancedb-store.js';
import { finishStandalone, isMain, measure, type BenchResult, type Table } from './lib/report.js';
import { percentile, round } from './lib/stats.js';

const DIM = 512;
const COMMITS = 20;
const SEARCHES = 20;
const ACCOUNT = 'usr_bench';
const WORDS = 'harbor lantern orchard granite meadow falcon copper willow river summit ember glacier prairie canyon'.split(' ');

let sequence = 0;
function random(): () => number {
  let state = 20261125;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}
const rand = random();

function item(): { memory: MemoryRecord; chunks: { seq: number; text: string; vector: Float32Array }[] } {
  const i = ++sequence;
  const words = Array.from({ length: 12 }, () => WORDS[Math.floor(rand() * WORDS.length)]).join(' ');
  const vector = Float32Array.from({ length: DIM }, () => rand() - 0.5);
  const memory: MemoryRecord = {
    id: `mem_${String(i).padStart(8, '0')}`,
    title: `note ${i}`,
    content: words,
    description: '',
    context: '',
    author: '',
    tags: i % 3 === 0 ? ['third'] : [],
    metadata: {},
    spaceId: '',
    createdAt: 1_700_000_000_000 + i,
    updatedAt: null,
    contentHash: `hash-${i}`,
    turbo: false,
  };
  return { memory, chunks: [{ seq: 0, text: words, vector }] };
}

/** ms per search (one vector and one keyword search, as a hybrid search asks the store) and process CPU ms. */
async function searchCost(store: LanceStore): Promise<{ wallMs: number; cpuMs: number }> {
  const memories = store.memories(ACCOUNT);
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < SEARCHES; i++) {
    const query = item().chunks[0]!;
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    await memories.vectorSearch(query.vector, {}, 20);
    await memories.keywordSearch(WORDS[i % WORDS.length]!, {}, 20);
    wall.push(performance.now() - started);
    const used = process.cpuUsage(cpuBefore);
    cpu.push((used.user + used.system) / 1000);
  }
  return { wallMs: percentile(wall, 50), cpuMs: percentile(cpu, 50) };
}

async function timedCpu(work: () => Promise<unknown>): Promise<{ wallMs: number; cpuMs: number }> {
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  await work();
  const used = process.cpuUsage(cpuBefore);
  return { wallMs: performance.now() - started, cpuMs: (used.user + used.system) / 1000 };
}

/** Search CPU every 10 rounds of COMMITS saves, each round followed by `after` (the compaction compared). */
async function cycles(size: number, count: number, after: 'none' | 'search tables' | 'full pass'): Promise<number[]> {
  const dir = mkdtempSync(join(tmpdir(), 'mem-bench-cycles-'));
  const store = await openLanceStore({ uri: dir, vectorSpace: { modelId: 'bench/random', dimension: DIM }, maintainEveryWrites: 0, compactSearchTablesEvery: 0 });
  try {
    const memories = store.memories(ACCOUNT);
    for (let done = 0; done < size; done += 500) await memories.putMany(Array.from({ length: Math.min(500, size - done) }, item));
    await store.maintain();
    const figures = [round((await searchCost(store)).cpuMs, 1)];
    for (let cycle = 1; cycle <= count; cycle++) {
      for (let i = 0; i < COMMITS; i++) {
        const { memory, chunks } = item();
        await memories.insert(memory, chunks);
      }
      if (after === 'search tables') await store.compactSearchTables();
      if (after === 'full pass') await store.maintain();
      if (cycle % 10 === 0) figures.push(round((await searchCost(store)).cpuMs, 1));
    }
    return figures;
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function runSearchCompaction(options: { sizes?: readonly number[]; rounds?: number; cycles?: number } = {}): Promise<BenchResult> {
  const started = Date.now();
  const sizes = options.sizes ?? [1000, 10_000];
  const rounds = options.rounds ?? 4;
  const uptime = [execFileSync('uptime').toString().trim()];
  const rows: (string | number)[][] = [];
  const figures: Record<string, unknown> = {};
  for (const size of sizes) {
    const dir = mkdtempSync(join(tmpdir(), 'mem-bench-compaction-'));
    const store = await openLanceStore({
      uri: dir,
      vectorSpace: { modelId: 'bench/random', dimension: DIM },
      maintainEveryWrites: 0,
      compactSearchTablesEvery: 0,
    });
    try {
      const memories = store.memories(ACCOUNT);
      for (let done = 0; done < size; done += 500) {
        await memories.putMany(Array.from({ length: Math.min(500, size - done) }, item));
      }
      await store.maintain();
      const compacted = await searchCost(store);
      const runs = { search: [] as number[], full: [] as number[] };
      const cpu = { search: [] as number[], full: [] as number[] };
      const fragmented: number[] = [];
      const after = { search: [] as number[], full: [] as number[] };
      for (let round = 0; round < rounds * 2; round++) {
        const kind = round % 2 === 0 ? 'search' : 'full';
        for (let i = 0; i < COMMITS; i++) {
          const { memory, chunks } = item();
          await memories.insert(memory, chunks);
        }
        fragmented.push((await searchCost(store)).cpuMs);
        const pass = await timedCpu(() => (kind === 'search' ? store.compactSearchTables() : store.maintain()));
        runs[kind].push(pass.wallMs);
        cpu[kind].push(pass.cpuMs);
        after[kind].push((await searchCost(store)).cpuMs);
      }
      const median = (values: number[]) => round(percentile(values, 50), 1);
      const fragmentedCpu = median(fragmented);
      // Commits a search pays for before the compaction has cost what it saves.
      const extraPerSearch = fragmentedCpu - median(after.search);
      rows.push([
        size,
        round(compacted.cpuMs, 1),
        fragmentedCpu,
        median(after.search),
        median(after.full),
        `${median(runs.search)} / ${median(cpu.search)}`,
        `${median(runs.full)} / ${median(cpu.full)}`,
        round(percentile(cpu.search, 50) / percentile(cpu.full, 50), 2),
        extraPerSearch > 0 ? Math.round(percentile(cpu.search, 50) / extraPerSearch) : 'n/a',
      ]);
      figures[`size-${size}`] = { compacted, fragmented, after, runs, cpu };
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const cycleCount = options.cycles ?? 40;
  const cycleRows: (string | number)[][] = [];
  for (const after of ['none', 'search tables', 'full pass'] as const) {
    const series = await cycles(sizes[0] ?? 1000, cycleCount, after);
    cycleRows.push([after, ...series]);
    figures[`cycles-${after}`] = series;
  }
  uptime.push(execFileSync('uptime').toString().trim());
  const tables: Table[] = [
    {
      title: `Search tables' compaction (A) vs the full pass (B) after ${COMMITS} single saves, ${rounds} A B pairs, medians; search CPU ms = one vector + one keyword search`,
      header: [
        'memories',
        'search CPU ms, compacted',
        `after ${COMMITS} commits`,
        'after A',
        'after B',
        'A wall / CPU ms',
        'B wall / CPU ms',
        'A/B CPU',
        'searches that pay for A',
      ],
      rows,
    },
    {
      title: `Search CPU ms (one vector + one keyword search, median of ${SEARCHES}) at ${sizes[0] ?? 1000} memories, every 10 rounds of ${COMMITS} saves, by what runs after each round`,
      header: ['after each round', 'start', ...Array.from({ length: Math.floor(cycleCount / 10) }, (_, i) => `${(i + 1) * 10 * COMMITS} saves`)],
      rows: cycleRows,
    },
  ];
  return {
    name: 'search-compaction',
    quick: false,
    seconds: Math.round((Date.now() - started) / 1000),
    figures: { ...figures, uptime },
    tables,
    notes: uptime.map((line, i) => `uptime ${i === 0 ? 'before' : 'after'}: ${line}`),
  };
}

if (isMain(import.meta.url)) {
  const { values } = parseArgs({ options: { sizes: { type: 'string' }, rounds: { type: 'string' }, cycles: { type: 'string' } } });
  const sizes = values.sizes?.split(',').map(Number);
  const rounds = values.rounds ? Number(values.rounds) : undefined;
  const cycleCount = values.cycles ? Number(values.cycles) : undefined;
  finishStandalone(
    await measure(() => runSearchCompaction({ ...(sizes ? { sizes } : {}), ...(rounds ? { rounds } : {}), ...(cycleCount ? { cycles: cycleCount } : {}) })),
  );
}
