/**
 * What authentication, rate limiting and usage recording add to every request: p50/p99 of a trivial
 * authenticated route (`GET /v1/bench/noop`, registered only here, returning a constant) against `/health`
 * (public: no key, no limits, not recorded), over real HTTP with keep-alive, one request at a time, the two
 * routes interleaved so that machine noise hits both alike. Measured for the owner's key (enterprise:
 * unlimited, the limiter still counts) and for a pro user's key (limits checked on every request; the pro
 * plan's limits are raised here so that the run never reaches them). Target: <= 1 ms added at p50.
 *
 *   node --import tsx bench/overhead.ts [--quick]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest, Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { buildApp } from '../daemon/app.js';
import { createDeps } from '../daemon/create-deps.js';
import { PLANS } from '../src/core/accounts/plans.js';
import { loadConfig } from '../src/config/load-config.js';
import { finishStandalone, isMain, measure, type BenchResult } from './lib/report.js';
import { round, summarize, type Summary } from './lib/stats.js';

/** Microsecond resolution: the differences measured here are fractions of a millisecond. */
function latencyFigures(values: readonly number[]): Summary {
  const s = summarize(values);
  return { n: s.n, mean: round(s.mean, 3), min: round(s.min, 3), p50: round(s.p50, 3), p95: round(s.p95, 3), p99: round(s.p99, 3), max: round(s.max, 3) };
}

export interface OverheadOptions {
  readonly quick?: boolean;
}

function get(agent: Agent, port: number, path: string, key?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const req = httpRequest(
      { host: '127.0.0.1', port, path, agent, headers: key ? { authorization: `Bearer ${key}` } : {} },
      (res) => {
        res.resume();
        res.on('end', () => {
          if (res.statusCode !== 200) reject(new Error(`${path}: HTTP ${res.statusCode}`));
          else resolve(Number(process.hrtime.bigint() - started) / 1e6);
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

export async function runOverhead(options: OverheadOptions = {}): Promise<BenchResult> {
  const started = Date.now();
  const rounds = options.quick ? 2_000 : 10_000;
  const warmUp = 500;
  const home = mkdtempSync(join(tmpdir(), 'mem-bench-overhead-'));
  const loaded = loadConfig({ env: { MEM_HOME: home } });
  const plans = { ...PLANS, pro: { ...PLANS.pro, requestsPerHour: 1e9, monthlyRequests: 1e9 } };
  const deps = await createDeps({ loaded, storeFirstKey: false, plans });
  const app = await buildApp(deps);
  // Hidden: not part of the API document (every documented route needs an operationId, daemon/openapi.ts).
  app.get('/v1/bench/noop', { schema: { hide: true } }, async () => ({ success: true }));
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const ownerKey = deps.firstKey ?? '';
    const owner = (await deps.storage.accounts.owner())!;
    const { value: proKey } = await deps.accounts.createUser(
      { account: owner, key: (await deps.auth.listKeys(owner.id))[0]!, tenant: owner.id },
      { email: 'bench@example.org', name: 'Bench', tier: 'pro' },
    );
    const series = { health: [] as number[], owner: [] as number[], pro: [] as number[] };
    for (let i = 0; i < warmUp + rounds; i++) {
      const health = await get(agent, port, '/health');
      const enterprise = await get(agent, port, '/v1/bench/noop', ownerKey);
      const pro = await get(agent, port, '/v1/bench/noop', proKey);
      if (i >= warmUp) {
        series.health.push(health);
        series.owner.push(enterprise);
        series.pro.push(pro);
      }
    }
    await deps.recorder.flush();
    const health = latencyFigures(series.health);
    const ownerFigures = latencyFigures(series.owner);
    const proFigures = latencyFigures(series.pro);
    const added = (figures: typeof health) => ({ p50: round(figures.p50 - health.p50, 3), p99: round(figures.p99 - health.p99, 3) });
    const recorded = (await deps.storage.usage.events(owner.id, { since: 0, until: Date.now() + 1 })).length;
    return {
      name: 'overhead',
      quick: Boolean(options.quick),
      seconds: (Date.now() - started) / 1000,
      figures: {
        rounds,
        health,
        authenticatedEnterprise: ownerFigures,
        authenticatedPro: proFigures,
        addedEnterprise: added(ownerFigures),
        addedPro: added(proFigures),
        usageEventsRecorded: recorded,
      },
      tables: [
        {
          title: `Per-request overhead of auth + rate limiting + usage recording (${rounds} requests each, HTTP keep-alive, sequential)`,
          header: ['route', 'p50 ms', 'p95 ms', 'p99 ms', 'added p50 ms', 'added p99 ms'],
          rows: [
            ['GET /health (public)', health.p50, health.p95, health.p99, '-', '-'],
            ['GET /v1/bench/noop, enterprise key', ownerFigures.p50, ownerFigures.p95, ownerFigures.p99, added(ownerFigures).p50, added(ownerFigures).p99],
            ['GET /v1/bench/noop, pro key (limits)', proFigures.p50, proFigures.p95, proFigures.p99, added(proFigures).p50, added(proFigures).p99],
          ],
        },
      ],
      notes: [`target: <= 1 ms added at p50; usage events recorded for the owner: ${recorded}`],
    };
  } finally {
    agent.destroy();
    await app.close();
    await deps.close();
    rmSync(home, { recursive: true, force: true });
  }
}

if (isMain(import.meta.url)) {
  const { values } = parseArgs({ options: { quick: { type: 'boolean', default: false } } });
  finishStandalone(await measure(() => runOverhead({ quick: values.quick })));
}
