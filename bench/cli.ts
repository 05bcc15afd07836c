/**
 * How long whole `mem` processes take against a running daemon, as a ratio to Node's own start: each command
 * is timed in pairs with `node -e 0` (A B A B ...), spawn to exit, and the figure is the median of the
 * per-pair ratios, so a machine busy with something else slows both halves of a pair alike. `mem mcp` is
 * timed from spawn to its answer to `initialize`. The daemon's own time for the same search and save (one
 * HTTP request from this process) is given beside, so a regression there cannot hide in the process figures.
 * Targets (issue 21): --version and --help <= 1.3x; search, save --turbo and __complete <= 1.6x; mcp <= 2x.
 *
 * `--against DIR` times another build too (a checkout of an older commit with `npm run build` done in it), in
 * the same pairs: node -e 0, then both CLIs in alternating order, against the same daemon. On a shared
 * machine whose load swings, only figures taken side by side like this compare two builds.
 *
 *   node --import tsx bench/cli.ts [--quick] [--against DIR]
 */
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { buildSnapshot, startDaemon, type BenchDaemon } from './lib/daemon.js';
import { finishStandalone, isMain, measure, type BenchResult } from './lib/report.js';
import { latencyFigures, round, summarize } from './lib/stats.js';

export interface CliBenchOptions {
  readonly quick?: boolean;
  /** A built checkout of another commit whose CLI is timed in the same pairs. */
  readonly against?: string | undefined;
}

interface Case {
  readonly label: string;
  readonly args: readonly string[];
  /** The ratio to `node -e 0` this case should stay within (issue 21), if it has one. */
  readonly target?: number;
  /** Instead of waiting for the exit: how the process is driven and when it counts as done. */
  readonly mcp?: boolean;
  /** Set on top of the user's environment (a configured client). */
  readonly env?: Readonly<Record<string, string>>;
  /** The command line of the n-th run, when each run needs its own (a note never saved, a query never asked). */
  readonly fresh?: (n: number) => readonly string[];
}

const INITIALIZE = `${JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'mem-bench', version: '1' } },
})}\n`;

/**
 * Runs one process to completion and returns its wall time in ms (spawn to exit, or spawn to the first
 * answer on stdout for `mcp`). A process that fails is an error: a fast failure is not a fast command.
 */
function runOnce(command: readonly string[], env: NodeJS.ProcessEnv, mcp = false): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command[0]!, command.slice(1), { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let answeredAt = 0;
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      if (mcp && !answeredAt && stdout.includes('\n')) {
        answeredAt = performance.now();
        child.stdin.end(); // the server exits when its input ends
      }
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    if (mcp) child.stdin.write(INITIALIZE);
    else child.stdin.end();
    child.once('error', reject);
    child.once('close', (code) => {
      const ended = performance.now();
      if (code !== 0) return reject(new Error(`${command.slice(1).join(' ')} exited ${code}: ${stderr.trim().slice(0, 500)}`));
      if (mcp && !/"result"\s*:\s*\{[^]*"serverInfo"/.test(stdout)) {
        return reject(new Error(`mcp did not answer initialize: ${stdout.slice(0, 300)} ${stderr.slice(0, 300)}`));
      }
      resolve((mcp ? answeredAt : ended) - started);
    });
  });
}

/** The median of a sample, rounded for the report. */
function median(values: readonly number[], digits: number): number {
  return round(summarize(values).p50, digits);
}

async function seed(daemon: BenchDaemon): Promise<void> {
  const notes = [
    'Met Sarah Chen from Globex in Berlin to discuss the Q3 roadmap and the quarterly review.',
    'Priya asked for the Globex invoice by Friday; the payment terms are 30 days.',
    'The team offsite is in Lisbon in March; book flights before the end of January.',
    'Stripe webhooks retry for three days; make the handler idempotent.',
    'Running three times a week: Monday, Wednesday and Saturday mornings.',
  ];
  for (const content of notes) await daemon.client.save({ content, tags: ['bench'] });
}

export async function runCliBench(options: CliBenchOptions = {}): Promise<BenchResult> {
  const started = Date.now();
  const pairs = options.quick ? 10 : 30;
  const daemon = await startDaemon();
  try {
    await seed(daemon);
    const bin = join(buildSnapshot().dir, 'bin', 'mem.js');
    const other = options.against ? join(resolve(options.against), 'bin', 'mem.js') : undefined;
    // What a user's shell gives a command: the home that holds the daemon's run file and the key.
    const env: NodeJS.ProcessEnv = { ...process.env, MEM_HOME: daemon.home, MEM_NO_KEYCHAIN: '1', NO_COLOR: '1' };
    for (const name of ['MEM_API_KEY', 'MEM_HOST', 'MEM_PORT']) delete env[name];
    let runs = 0;
    const cases: Case[] = [
      { label: 'mem --version', args: ['--version'], target: 1.3 },
      { label: 'mem --help', args: ['--help'], target: 1.3 },
      { label: 'mem search "Globex review"', args: ['search', 'Globex review'], target: 1.6 },
      // The daemon keeps the embeddings of recent queries: a query never asked before pays for its embedding.
      { label: 'mem search, a new query each run', args: ['search'], target: 1.6, fresh: (n) => ['search', `Globex review ${n}`] },
      // A user who configured something: the config is checked on the way to the daemon.
      { label: 'mem search, a config key set (MEM_CLIENT_TIMEOUT_MS)', args: ['search', 'Globex review'], target: 1.6, env: { MEM_CLIENT_TIMEOUT_MS: '30000' } },
      { label: 'mem save --turbo', args: ['save', '--turbo'], target: 1.6, fresh: (n) => ['save', '--turbo', `bench note ${n} about the Globex review`] },
      { label: 'mem ask "Who is Sarah Chen?"', args: ['ask', 'Who is Sarah Chen?'] },
      { label: 'mem __complete memories', args: ['__complete', 'memories'], target: 1.6 },
      { label: 'mem mcp (to initialize)', args: ['mcp'], target: 2, mcp: true },
    ];
    const argsOf = (item: Case) => (item.fresh ? item.fresh(++runs) : item.args);
    const floor = [process.execPath, '-e', '0'];
    const rows: (string | number)[][] = [];
    const figures: Record<string, unknown> = { pairs };
    for (const item of cases) {
      process.stderr.write(`  ${item.label}\n`);
      const caseEnv = item.env ? { ...env, ...item.env } : env;
      // One untimed run of each: the first spawn pays for a cold file cache.
      await runOnce(floor, env);
      await runOnce([process.execPath, bin, ...argsOf(item)], caseEnv, item.mcp);
      if (other) await runOnce([process.execPath, other, ...argsOf(item)], caseEnv, item.mcp);
      const nodeMs: number[] = [];
      const memMs: number[] = [];
      const ratios: number[] = [];
      const otherMs: number[] = [];
      const otherRatios: number[] = [];
      for (let i = 0; i < pairs; i++) {
        const a = await runOnce(floor, env);
        // The two builds take turns going first, so neither always runs right after node -e 0.
        const otherFirst = other !== undefined && i % 2 === 1;
        const c = otherFirst ? await runOnce([process.execPath, other, ...argsOf(item)], caseEnv, item.mcp) : 0;
        const b = await runOnce([process.execPath, bin, ...argsOf(item)], caseEnv, item.mcp);
        const d = other && !otherFirst ? await runOnce([process.execPath, other, ...argsOf(item)], caseEnv, item.mcp) : c;
        nodeMs.push(a);
        memMs.push(b);
        ratios.push(b / a);
        if (other) {
          otherMs.push(d);
          otherRatios.push(d / a);
        }
      }
      const ratio = median(ratios, 2);
      const againstRatio = other ? median(otherRatios, 2) : null;
      figures[item.label] = {
        ratio,
        memMs: latencyFigures(memMs),
        nodeMs: latencyFigures(nodeMs),
        target: item.target ?? null,
        ...(other ? { against: { ratio: againstRatio, memMs: latencyFigures(otherMs) } } : {}),
      };
      rows.push([
        item.label,
        median(nodeMs, 1),
        ...(other ? [median(otherMs, 1), againstRatio ?? '-'] : []),
        median(memMs, 1),
        ratio,
        item.target ? `<= ${item.target}` : '-',
        item.target ? (ratio <= item.target ? 'yes' : 'no') : '-',
      ]);
    }
    // The daemon's own share: the same requests from this process over HTTP (keep-alive, warm).
    const searchMs: number[] = [];
    const freshSearchMs: number[] = [];
    const saveMs: number[] = [];
    for (let i = 0; i < pairs; i++) {
      let t = performance.now();
      await daemon.client.search({ query: 'Globex review' });
      searchMs.push(performance.now() - t);
      t = performance.now();
      await daemon.client.search({ query: `Globex review ${++runs}` });
      freshSearchMs.push(performance.now() - t);
      t = performance.now();
      await daemon.client.turboSave({ content: `bench http note ${i} about the Globex review` });
      saveMs.push(performance.now() - t);
    }
    figures.daemonSearchMs = latencyFigures(searchMs);
    figures.daemonFreshSearchMs = latencyFigures(freshSearchMs);
    figures.daemonTurboSaveMs = latencyFigures(saveMs);
    return {
      name: 'cli',
      quick: Boolean(options.quick),
      seconds: (Date.now() - started) / 1000,
      figures,
      tables: [
        {
          title: `Whole processes against a running daemon, each paired with \`node -e 0\` (${pairs} pairs, A B A B, median of per-pair ratios)`,
          header: ['command', 'node -e 0 ms', ...(other ? ['against: mem ms', 'against: ratio'] : []), 'mem ms', 'ratio', 'target', 'met'],
          rows,
        },
      ],
      notes: [
        ...(other ? [`against: ${options.against}, timed in the same pairs (node -e 0, then both builds in turn)`] : []),
        `the daemon's own time (one HTTP request from the benchmark process, median): search ${median(searchMs, 1)} ms (a new query each time ${median(freshSearchMs, 1)} ms), turbo save ${median(saveMs, 1)} ms`,
      ],
    };
  } finally {
    await daemon.stop();
  }
}

if (isMain(import.meta.url)) {
  const { values } = parseArgs({ options: { quick: { type: 'boolean', default: false }, against: { type: 'string' } } });
  finishStandalone(await measure(() => runCliBench({ quick: values.quick, against: values.against })));
}
