import { mkdirSync, writeFileSync } from 'node:fs';
import { arch, cpus, loadavg, release, totalmem, type } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { VERSION } from '../../src/version.js';
import { buildInfo, memEnvironment, REPO_ROOT } from './daemon.js';

export const RESULTS_DIR = join(REPO_ROOT, 'bench', 'results');

/** A table printed after a benchmark: first column is the row label. */
export interface Table {
  readonly title: string;
  readonly header: readonly string[];
  readonly rows: readonly (readonly (string | number)[])[];
}

/** What every benchmark returns: machine-readable figures for latest.json and tables for people. */
export interface BenchResult {
  readonly name: string;
  readonly quick: boolean;
  readonly seconds: number;
  readonly figures: Record<string, unknown>;
  readonly tables: readonly Table[];
  readonly notes: readonly string[];
}

export interface Machine {
  readonly os: string;
  readonly cpu: string;
  readonly cores: number;
  readonly memoryGb: number;
  readonly node: string;
}

export function machine(): Machine {
  const cpuList = cpus();
  return {
    os: `${type()} ${release()} ${arch()}`,
    cpu: cpuList[0]?.model.trim() ?? 'unknown',
    cores: cpuList.length,
    memoryGb: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
    node: process.version,
  };
}

/** The envelope of a report file: where and what it was measured on, then the benchmarks' figures. */
export function envelope(results: readonly BenchResult[], quick: boolean) {
  return {
    date: new Date().toISOString(),
    mem: { version: VERSION, ...buildInfo() },
    machine: machine(),
    environment: memEnvironment(),
    quick,
    benchmarks: Object.fromEntries(
      results.map((result) => [result.name, { seconds: result.seconds, quick: result.quick, ...result.figures, notes: result.notes }]),
    ),
  };
}

export function writeJson(fileName: string, value: unknown): string {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const path = join(RESULTS_DIR, fileName);
  writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);
  return path;
}

function cell(value: string | number): string {
  if (typeof value === 'string') return value;
  if (!Number.isFinite(value)) return '-';
  if (Number.isInteger(value)) return String(value);
  return Math.abs(value) < 10 ? value.toFixed(3) : value.toFixed(1);
}

/** A plain-text table with right-aligned figures (GitHub-flavoured markdown, readable in a terminal too). */
export function formatTable(table: Table): string {
  const rows = table.rows.map((row) => row.map(cell));
  const widths = table.header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (values: readonly string[]) =>
    `| ${values.map((value, column) => (column === 0 ? value.padEnd(widths[column] ?? 0) : value.padStart(widths[column] ?? 0))).join(' | ')} |`;
  const rule = `|${widths.map((width, column) => (column === 0 ? `${'-'.repeat(width + 2)}` : `${'-'.repeat(width + 1)}:`)).join('|')}|`;
  return [`${table.title}`, '', line(table.header), rule, ...rows.map(line)].join('\n');
}

export function printResult(result: BenchResult): void {
  process.stdout.write(`\n## ${result.name}${result.quick ? ' (quick)' : ''}: ${result.seconds.toFixed(0)} s\n\n`);
  for (const table of result.tables) process.stdout.write(`${formatTable(table)}\n\n`);
  for (const note of result.notes) process.stdout.write(`- ${note}\n`);
}

/** The host's 1-minute load average: other processes on the machine skew latency, so reports record it. */
function hostLoad(): number {
  return Math.round((loadavg()[0] ?? Number.NaN) * 100) / 100;
}

/** Runs one benchmark and adds the host load average before and after it to its figures. */
export async function measure(run: () => Promise<BenchResult>): Promise<BenchResult> {
  const before = hostLoad();
  const result = await run();
  const after = hostLoad();
  return {
    ...result,
    figures: { ...result.figures, hostLoadAverage1m: { before, after } },
    notes: [...result.notes, `host load average (1 min) before/after: ${before}/${after} on ${cpus().length} cores`],
  };
}

/** Standalone runs (`node --import tsx bench/<name>.ts`): print, and write bench/results/<name>.json. */
export function finishStandalone(result: BenchResult): void {
  printResult(result);
  const path = writeJson(`${result.name}.json`, envelope([result], result.quick));
  process.stdout.write(`\nreport: ${path}\n`);
}

/** True when `moduleUrl` is the script node was started with (and not imported by bench/run.ts). */
export function isMain(moduleUrl: string): boolean {
  const script = process.argv[1];
  return script !== undefined && moduleUrl === pathToFileURL(resolve(script)).href;
}
