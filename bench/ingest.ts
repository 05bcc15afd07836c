/**
 * Bulk ingest throughput through the API: POST /v1/ingest (async job) of N short generated notes, timed from
 * the request to the job's completion (status polled every 250 ms: each poll of a 10k-item job returns every
 * stored id, and faster polling took CPU from the daemon on the same 2 cores), for standard items (embedding + built-in
 * extraction) and turbo items (embedding only), at 10,000 items (quick: 1,000). Each run uses a
 * fresh daemon. Targets (issue #10): >= 100 items/s standard, >= 150 items/s turbo on this 2-core machine.
 *
 * Then a watched folder: 1,000 markdown files (quick: 200) written to a temporary directory, `POST /v1/watches`, and
 * the time until every file is searchable: the first-scan job has completed and a search for a phrase only the
 * last file holds finds it.
 *
 *   node --import tsx bench/ingest.ts [--quick]
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startDaemon } from './lib/daemon.js';
import { createNoteGenerator } from './lib/notes.js';
import { finishStandalone, isMain, measure, type BenchResult } from './lib/report.js';
import { round } from './lib/stats.js';

export interface IngestBenchOptions {
  readonly quick?: boolean;
}

const SEED = 20261121;

interface Run {
  readonly items: number;
  readonly turbo: boolean;
  readonly seconds: number;
  readonly itemsPerSecond: number;
  readonly failed: number;
  readonly peakRssMb: number;
}

async function runOnce(items: number, turbo: boolean): Promise<Run> {
  const daemon = await startDaemon({ timeoutMs: 600_000 });
  try {
    const generator = createNoteGenerator(SEED + items + (turbo ? 1 : 0));
    const payload = Array.from({ length: items }, () => {
      const note = generator.note();
      return { content: note.content, tags: note.tags };
    });
    const started = performance.now();
    const accepted = await daemon.client.ingest({ items: payload, async: true, turbo });
    let failed = 0;
    for (;;) {
      const status = await daemon.client.ingestStatus(accepted.jobId);
      if (status.status === 'completed' || status.status === 'failed') {
        failed = status.progress.failed;
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const seconds = (performance.now() - started) / 1000;
    return { items, turbo, seconds: round(seconds, 2), itemsPerSecond: round(items / seconds, 1), failed, peakRssMb: round(daemon.peakRssMb(), 0) };
  } finally {
    await daemon.stop();
  }
}

interface WatchRun {
  readonly files: number;
  readonly seconds: number;
  readonly filesPerSecond: number;
  readonly memories: number;
}

async function runWatch(files: number): Promise<WatchRun> {
  const daemon = await startDaemon({ timeoutMs: 600_000 });
  const folder = mkdtempSync(join(tmpdir(), 'mem-bench-watch-'));
  try {
    const generator = createNoteGenerator(SEED + files);
    mkdirSync(join(folder, 'notes'), { recursive: true });
    for (let i = 0; i < files; i++) {
      const note = generator.note();
      const marker = i === files - 1 ? ' The final marker phrase is zanzibar quokka.' : '';
      writeFileSync(join(folder, 'notes', `note-${String(i).padStart(5, '0')}.md`), `# Note ${i}\n\n${note.content}${marker}\n`);
    }
    const started = performance.now();
    const added = await daemon.client.addWatch({ path: folder, keepDeleted: false });
    for (;;) {
      const status = await daemon.client.ingestStatus(added.jobId);
      if (status.status === 'completed' || status.status === 'failed') break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    for (;;) {
      const found = await daemon.client.search({ query: 'zanzibar quokka', hybrid: true, threshold: 0, limit: 1 });
      if (found.results[0]?.content.includes('zanzibar quokka')) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const seconds = (performance.now() - started) / 1000;
    const listed = await daemon.client.listMemories({ limit: 1 });
    return { files, seconds: round(seconds, 2), filesPerSecond: round(files / seconds, 1), memories: listed.pagination.total };
  } finally {
    await daemon.stop();
    rmSync(folder, { recursive: true, force: true });
  }
}

export async function runIngestBench(options: IngestBenchOptions = {}): Promise<BenchResult> {
  const started = Date.now();
  const sizes = options.quick ? [1_000] : [10_000];
  const runs: Run[] = [];
  for (const size of sizes) {
    for (const turbo of [false, true]) {
      process.stderr.write(`  ingest ${size} ${turbo ? 'turbo' : 'standard'} items...\n`);
      runs.push(await runOnce(size, turbo));
    }
  }
  const watchFiles = options.quick ? 200 : 1_000;
  process.stderr.write(`  watched folder of ${watchFiles} markdown files...\n`);
  const watch = await runWatch(watchFiles);
  return {
    name: 'ingest',
    quick: Boolean(options.quick),
    seconds: (Date.now() - started) / 1000,
    figures: { runs, watch },
    tables: [
      {
        title: 'Bulk ingest through POST /v1/ingest (async job, request to completion)',
        header: ['items', 'mode', 'seconds', 'items/s', 'failed', 'peak RSS MiB'],
        rows: runs.map((run) => [run.items, run.turbo ? 'turbo' : 'standard', run.seconds, run.itemsPerSecond, run.failed, run.peakRssMb]),
      },
      {
        title: 'Watched folder: POST /v1/watches to the last file searchable',
        header: ['files', 'seconds', 'files/s', 'memories'],
        rows: [[watch.files, watch.seconds, watch.filesPerSecond, watch.memories]],
      },
    ],
    notes: ['targets: >= 100 items/s standard, >= 150 items/s turbo (2 cores)'],
  };
}

if (isMain(import.meta.url)) {
  const { values } = parseArgs({ options: { quick: { type: 'boolean', default: false } } });
  finishStandalone(await measure(() => runIngestBench({ quick: values.quick })));
}
