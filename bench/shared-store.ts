/**
 * Several daemons, one object store (issue #24), on Azurite from npm on 127.0.0.1:
 *
 * 1. Latency: the same operations (standard save, get by id, list, search, structured query) on a daemon
 *    whose data is on Azurite and on one with a local data directory, both running, in A B A B rounds;
 *    medians of each side's p50 and the ratio (Azurite / local) per operation.
 * 2. Throughput: turbo saves and searches with C requests in flight from a round-robin client, against one
 *    daemon and against two daemons on the same Azurite store, A B A B; requests per second, medians.
 *
 * Everything runs on one machine (the figures include Azurite's own CPU); `uptime` is recorded.
 *
 *   node --import tsx bench/shared-store.ts [--quick]
 */
import { execFileSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import { startAzurite, type Azurite } from '../test/helpers/azurite.js';
import { freePort, mem } from '../test/helpers/cli.js';
import { tempHome } from '../test/helpers/temp-home.js';
import { finishStandalone, isMain, measure, type BenchResult, type Table } from './lib/report.js';
import { percentile, round } from './lib/stats.js';
import { createNoteGenerator } from './lib/notes.js';

export interface SharedStoreOptions {
  readonly quick?: boolean;
}

interface Daemon {
  readonly name: string;
  readonly base: string;
  readonly env: NodeJS.ProcessEnv;
  key: string;
  stop(): Promise<void>;
}

async function startOne(name: string, env: NodeJS.ProcessEnv): Promise<Daemon> {
  const home = tempHome(`mem-bench-${name}-`);
  const port = await freePort();
  const full = { ...home.env, ...env, MEM_PORT: String(port) };
  const started = await mem(['daemon', 'start', '--json'], full, { timeout: 120_000 });
  if (started.exitCode !== 0) throw new Error(`${name}: ${started.stderr}`);
  const key = (await mem(['token'], full)).stdout.trim();
  return {
    name,
    base: `http://127.0.0.1:${port}`,
    env: full,
    key,
    async stop() {
      await mem(['daemon', 'stop'], full);
      home.remove();
    },
  };
}

async function call(daemon: Daemon, key: string, method: string, path: string, body?: unknown): Promise<unknown> {
  const response = await fetch(daemon.base + path, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${method} ${path} on ${daemon.name}: ${response.status} ${text.slice(0, 200)}`);
  return JSON.parse(text) as unknown;
}

async function timeOne(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

const load = () => execFileSync('uptime', { encoding: 'utf8' }).trim();

export async function runSharedStore(options: SharedStoreOptions = {}): Promise<BenchResult> {
  const started = Date.now();
  const quick = options.quick ?? false;
  const notes: string[] = [`uptime at start: ${load()}`];
  const azurite: Azurite = await startAzurite();
  const daemons: Daemon[] = [];
  try {
    await azurite.createContainer('mem');
    const shared = { ...azurite.env, MEM_STORAGE_URI: `az://mem/bench-${Date.now()}` };
    const local = await startOne('local', {});
    daemons.push(local);
    const azureA = await startOne('azure-a', shared);
    daemons.push(azureA);
    const azureB = await startOne('azure-b', shared);
    daemons.push(azureB);
    // The second Azure daemon found the owner the first one created: it uses that key.
    azureB.key = azureA.key;

    // ---- latency: local vs Azurite, A B A B ------------------------------------------------------------
    const generator = createNoteGenerator(24);
    const text = (label: string) => `${generator.note().content} (${label})`;
    const preload = quick ? 100 : 300;
    for (const daemon of [local, azureA]) {
      const items = Array.from({ length: preload }, (_, i) => ({ content: text(`preload ${i}`), tags: ['bench'] }));
      await call(daemon, daemon.key, 'POST', '/v1/ingest', { items, async: false, turbo: true });
    }
    const queries = ['meeting about the roadmap', 'travel plans for the summer', 'notes on the budget review', 'who called about the contract'];
    const operations: Record<string, (daemon: Daemon, i: number) => Promise<unknown>> = {
      save: (daemon, i) => call(daemon, daemon.key, 'POST', '/v1/save', { content: text(`latency ${i}`), tags: ['lat'] }),
      get: async (daemon) => {
        const list = (await call(daemon, daemon.key, 'GET', '/v1/memories?limit=1')) as { data: { id: string }[] };
        return call(daemon, daemon.key, 'GET', `/v1/memory/${list.data[0]?.id ?? ''}`);
      },
      list: (daemon) => call(daemon, daemon.key, 'GET', '/v1/memories?limit=20&tags=bench'),
      search: (daemon, i) => call(daemon, daemon.key, 'POST', '/v1/search', { query: queries[i % queries.length] }),
      query: (daemon) => call(daemon, daemon.key, 'POST', '/v1/query', { filters: { tags: { $in: ['bench'] } }, sort: { createdAt: -1 }, limit: 10 }),
    };
    const rounds = quick ? 2 : 4;
    const perRound = quick ? 8 : 20;
    const p50s: Record<string, { local: number[]; azure: number[] }> = {};
    for (const name of Object.keys(operations)) p50s[name] = { local: [], azure: [] };
    for (let round = 0; round < rounds; round++) {
      for (const [side, daemon] of [['local', local], ['azure', azureA]] as const) {
        for (const [name, operation] of Object.entries(operations)) {
          await operation(daemon, 0); // warm
          const samples: number[] = [];
          for (let i = 0; i < perRound; i++) samples.push(await timeOne(() => operation(daemon, round * perRound + i)));
          p50s[name]?.[side].push(percentile(samples, 50));
        }
      }
      notes.push(`latency round ${round + 1}: ${load()}`);
    }
    const latencyRows = Object.entries(p50s).map(([name, sides]) => {
      const localMs = percentile(sides.local, 50);
      const azureMs = percentile(sides.azure, 50);
      return [name, round(localMs, 1), round(azureMs, 1), round(azureMs / localMs, 2)] as const;
    });

    // ---- throughput: one vs two daemons on one Azurite store, round-robin, A B A B -------------------
    const inFlight = 8;
    const requests = quick ? 48 : 160;
    const throughputRuns: Record<string, { one: number[]; two: number[] }> = { 'turbo save': { one: [], two: [] }, search: { one: [], two: [] } };
    let counter = 0;
    const run = async (targets: readonly Daemon[], kind: 'turbo save' | 'search'): Promise<number> => {
      let next = 0;
      const began = performance.now();
      await Promise.all(
        Array.from({ length: inFlight }, async () => {
          for (;;) {
            const i = next++;
            if (i >= requests) return;
            const daemon = targets[i % targets.length] as Daemon;
            if (kind === 'turbo save') await call(daemon, azureA.key, 'POST', '/v1/turbo/save', { content: text(`throughput ${counter++}`) });
            else await call(daemon, azureA.key, 'POST', '/v1/search', { query: queries[i % queries.length] });
          }
        }),
      );
      return (requests * 1000) / (performance.now() - began);
    };
    for (let round = 0; round < rounds; round++) {
      for (const kind of ['turbo save', 'search'] as const) {
        throughputRuns[kind]?.one.push(await run([azureA], kind));
        throughputRuns[kind]?.two.push(await run([azureA, azureB], kind));
      }
      notes.push(`throughput round ${round + 1}: ${load()}`);
    }
    const throughputRows = Object.entries(throughputRuns).map(([kind, sides]) => {
      const one = percentile(sides.one, 50);
      const two = percentile(sides.two, 50);
      return [kind, round(one, 1), round(two, 1), round(two / one, 2)] as const;
    });

    const tables: Table[] = [
      {
        title: `Latency, p50 ms (medians of ${rounds} A B rounds of ${perRound} requests; ${preload} memories preloaded)`,
        header: ['operation', 'local dir', 'Azurite', 'ratio'],
        rows: latencyRows,
      },
      {
        title: `Throughput, requests/s (${requests} requests, ${inFlight} in flight, round-robin; medians of ${rounds} A B rounds)`,
        header: ['request', 'one daemon', 'two daemons', 'ratio'],
        rows: throughputRows,
      },
    ];
    return {
      name: 'shared-store',
      quick,
      seconds: Math.round((Date.now() - started) / 1000),
      figures: {
        latencyP50Ms: Object.fromEntries(latencyRows.map(([name, localMs, azureMs, ratio]) => [name, { local: localMs, azurite: azureMs, ratio }])),
        throughputPerSecond: Object.fromEntries(throughputRows.map(([kind, one, two, ratio]) => [kind, { one, two, ratio }])),
      },
      tables,
      notes,
    };
  } finally {
    for (const daemon of daemons) await daemon.stop().catch(() => undefined);
    await azurite.stop();
  }
}

if (isMain(import.meta.url)) {
  const { values } = parseArgs({ options: { quick: { type: 'boolean', default: false } } });
  finishStandalone(await measure(() => runSharedStore({ quick: values.quick })));
}
