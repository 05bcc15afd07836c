/**
 * Where a search's time goes inside the daemon (issue 21: "the daemon side of search"): an in-process
 * daemon (real deps, the built-in embedder, five notes) serves `POST /v1/search` over real HTTP with
 * keep-alive, one request at a time; for each request the server's whole time (its `request` event to the
 * response's `finish`) is split into the search service's own time and the rest (parsing, auth, admission,
 * validation, serialisation, usage accounting). The query is the same each time (as `mem search` in a
 * loop sends it) and then new each time (the query's embedding is not cached). The zod validation of the
 * body and the serialisation of the answer are also timed alone, in this process.
 *
 *   node --import tsx bench/search-phases.ts [--quick]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { buildApp } from '../daemon/app.js';
import { createDeps } from '../daemon/create-deps.js';
import { SearchBody, SearchResponse } from '../src/api/contract.js';
import { loadConfig } from '../src/config/load-config.js';
import { finishStandalone, isMain, measure, type BenchResult } from './lib/report.js';
import { round, summarize } from './lib/stats.js';

function post(agent: Agent, port: number, path: string, key: string, body: unknown): Promise<{ ms: number; text: string }> {
  return new Promise((resolve, reject) => {
    const payload = JSON.stringify(body);
    const started = performance.now();
    const req = httpRequest(
      { host: '127.0.0.1', port, path, method: 'POST', agent, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
        res.on('end', () => (res.statusCode !== undefined && res.statusCode < 300 ? resolve({ ms: performance.now() - started, text }) : reject(new Error(`${path}: HTTP ${res.statusCode} ${text}`))));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

const p50 = (values: readonly number[], digits = 2) => round(summarize(values).p50, digits);

export async function runSearchPhases(options: { quick?: boolean } = {}): Promise<BenchResult> {
  const started = Date.now();
  const rounds = options.quick ? 30 : 100;
  const home = mkdtempSync(join(tmpdir(), 'mem-bench-phases-'));
  const deps = await createDeps({ loaded: loadConfig({ env: { MEM_HOME: home } }), storeFirstKey: false });
  // The service's own time, request by request (the route makes exactly one search call).
  const serviceMs: number[] = [];
  const search = deps.memories.search.bind(deps.memories);
  (deps.memories as { search: typeof search }).search = async (...args) => {
    const t = performance.now();
    try {
      return await search(...args);
    } finally {
      serviceMs.push(performance.now() - t);
    }
  };
  const app = await buildApp(deps);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const serverMs: number[] = [];
  app.server.prependListener('request', (_request, response) => {
    const t = performance.now();
    response.once('finish', () => serverMs.push(performance.now() - t));
  });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const key = deps.firstKey ?? '';
    for (const content of [
      'Met Sarah Chen from Globex in Berlin to discuss the Q3 roadmap and the quarterly review.',
      'Priya asked for the Globex invoice by Friday; the payment terms are 30 days.',
      'The team offsite is in Lisbon in March; book flights before the end of January.',
      'Stripe webhooks retry for three days; make the handler idempotent.',
      'Running three times a week: Monday, Wednesday and Saturday mornings.',
    ]) await post(agent, port, '/v1/save', key, { content });
    const rows: (string | number)[][] = [];
    const figures: Record<string, unknown> = { rounds };
    let sample = '';
    for (const [label, query] of [
      ['the same query each time', () => 'Globex review'],
      ['a new query each time', (i: number) => `Globex review number ${i}`],
    ] as const) {
      for (let i = 0; i < 10; i++) await post(agent, port, '/v1/search', key, { query: query(-1 - i) });
      serviceMs.length = 0;
      serverMs.length = 0;
      const clientMs: number[] = [];
      for (let i = 0; i < rounds; i++) {
        const answer = await post(agent, port, '/v1/search', key, { query: query(i) });
        clientMs.push(answer.ms);
        sample = answer.text;
      }
      const rest = serverMs.map((ms, i) => ms - (serviceMs[i] ?? 0));
      figures[label] = { clientMs: p50(clientMs), serverMs: p50(serverMs), serviceMs: p50(serviceMs), restMs: p50(rest) };
      rows.push([label, p50(clientMs), p50(serverMs), p50(serviceMs), p50(rest)]);
    }
    // The two zod steps of the route alone: the body's validation and the answer's serialisation check.
    const answer: unknown = JSON.parse(sample);
    const validateMs: number[] = [];
    const serializeMs: number[] = [];
    for (let i = 0; i < rounds * 10; i++) {
      let t = performance.now();
      SearchBody.parse({ query: 'Globex review' });
      validateMs.push(performance.now() - t);
      t = performance.now();
      JSON.stringify(SearchResponse.parse(answer));
      serializeMs.push(performance.now() - t);
    }
    figures.bodyValidationMs = p50(validateMs, 4);
    figures.answerSerializationMs = p50(serializeMs, 4);
    return {
      name: 'search-phases',
      quick: Boolean(options.quick),
      seconds: (Date.now() - started) / 1000,
      figures,
      tables: [
        {
          title: `POST /v1/search in an in-process daemon, 5 notes, ${rounds} requests each, keep-alive (p50 ms)`,
          header: ['query', 'client', 'server (request to finish)', 'search service', 'the rest of the server'],
          rows,
        },
      ],
      notes: [`alone, in this process (p50): body validation ${figures.bodyValidationMs} ms, answer check and JSON ${figures.answerSerializationMs} ms`],
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
  finishStandalone(await measure(() => runSearchPhases({ quick: values.quick })));
}
