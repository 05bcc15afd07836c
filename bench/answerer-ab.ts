/**
 * The built-in answerer's own time, this build against another (--base), on the requests a fit-answers run
 * saved (what retrieval gave the answerer for each LoCoMo question): A B A B passes over all of them, each
 * build with its own shipped parameters, after one untimed pass each. Retrieval and the fact lookup are not
 * in it (they do not change with the answerer); sentence embeddings are memoised across the passes, so the
 * figure is the answerer's CPU: its ranking, spans and abstention signals. Reports each pass, the median
 * per build and the ratio B/A, with the load average. Needs both builds' dist (npm run build).
 *
 *   git archive <commit> | tar -x -C /tmp/base && ln -s "$PWD/node_modules" /tmp/base/ && (cd /tmp/base && npm run build)
 *   node --import tsx bench/answerer-ab.ts --base /tmp/base [--requests bench/results/answers-requests.json] [--pairs 3]
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { AnswerRequest, EmbeddingModel } from '../src/providers/spec.js';
import type { AskedQuestion } from './lib/answer-eval.js';
import { REPO_ROOT } from './lib/daemon.js';
import { requestOf } from './lib/line-ranker.js';
import { isMain } from './lib/report.js';
import { percentile, round } from './lib/stats.js';

interface Answerer {
  extract(request: AnswerRequest): Promise<unknown>;
}

/** A build's answerer with its shipped rules, from its dist. */
async function answererOf(root: string, embedder: EmbeddingModel): Promise<Answerer> {
  const model = (await import(pathToFileURL(join(root, 'dist/src/providers/builtin/builtin-language-model.js')).href)) as {
    BuiltinLanguageModel: new (embedder: EmbeddingModel, rules: unknown) => Answerer;
  };
  const parameters = (await import(pathToFileURL(join(root, 'dist/src/core/answers/answer-parameters.js')).href)) as { ANSWER_PARAMETERS: { rules: unknown } };
  return new model.BuiltinLanguageModel(embedder, parameters.ANSWER_PARAMETERS.rules);
}

/** The embedder with a memo shared by both builds: the passes time the answerer, not the embedder. */
function memoised(inner: EmbeddingModel): EmbeddingModel {
  const memo = new Map<string, Float32Array>();
  return {
    provider: inner.provider,
    modelId: inner.modelId,
    dimension: inner.dimension,
    maxEmbeddingsPerCall: inner.maxEmbeddingsPerCall,
    init: () => inner.init(),
    close: () => Promise.resolve(),
    async doEmbed(texts, options) {
      const missing = [...new Set(texts.filter((text) => !memo.has(text)))];
      if (missing.length > 0) (await inner.doEmbed(missing, options)).forEach((vector, index) => memo.set(missing[index] as string, vector));
      return texts.map((text) => memo.get(text) as Float32Array);
    },
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { base: { type: 'string' }, requests: { type: 'string', default: 'bench/results/answers-requests.json' }, pairs: { type: 'string', default: '3' } } });
  if (!values.base) throw new Error('--base DIR (the build to compare with) is required');
  const requests = (JSON.parse(readFileSync(values.requests, 'utf8')) as AskedQuestion[]).map(requestOf).filter((request) => request !== undefined);
  const { BuiltinEmbeddingModel } = (await import(pathToFileURL(join(REPO_ROOT, 'dist/src/providers/builtin/builtin-embedding-model.js')).href)) as {
    BuiltinEmbeddingModel: new (threads: number) => EmbeddingModel;
  };
  const inner = new BuiltinEmbeddingModel(1);
  await inner.init();
  const embedder = memoised(inner);
  const builds = { A: await answererOf(resolve(values.base), embedder), B: await answererOf(REPO_ROOT, embedder) };
  const pass = async (answerer: Answerer) => {
    const times: number[] = [];
    for (const request of requests) {
      const started = performance.now();
      await answerer.extract(request);
      times.push(performance.now() - started);
    }
    return times;
  };
  try {
    await pass(builds.A);
    await pass(builds.B);
    const medians: Record<'A' | 'B', number[]> = { A: [], B: [] };
    for (let pair = 0; pair < Number(values.pairs); pair++) {
      for (const build of ['A', 'B'] as const) {
        const times = await pass(builds[build]);
        const total = times.reduce((sum, value) => sum + value, 0);
        medians[build].push(percentile(times, 50));
        console.log(`${build}: ${requests.length} answers in ${round(total)} ms, p50 ${round(percentile(times, 50), 3)} ms, p95 ${round(percentile(times, 95), 3)} ms, load ${loadavg()[0]?.toFixed(1)}`);
      }
    }
    const median = (list: number[]) => percentile(list, 50);
    console.log(`median p50 A ${round(median(medians.A), 3)} ms, B ${round(median(medians.B), 3)} ms, ratio B/A ${round(median(medians.B) / median(medians.A), 3)}`);
  } finally {
    await inner.close();
  }
}

if (isMain(import.meta.url)) await main();
