/**
 * `npm run bench [-- --quick] [-- --only scale,locomo,scifact,ingest,load,overhead,query,answers,fuzz,cli,search-phases,embedder,shared-store] [-- --locomo FILE] [-- --scifact DIR]`:
 * builds (npm does), runs the chosen benchmarks one after another (all of them; with --quick alone,
 * scale, locomo, scifact, overhead and cli), each against its own fresh daemon,
 * prints every figure, and writes bench/results/latest.json (machine, mem version, date, figures).
 */
import { parseArgs } from 'node:util';
import { runAnswers } from './answers.js';
import { runFuzz } from './fuzz.js';
import { runCliBench } from './cli.js';
import { runEmbedderBench } from './embedder.js';
import { runSearchPhases } from './search-phases.js';
import { runSharedStore } from './shared-store.js';
import { runOverhead } from './overhead.js';
import { runIngestBench } from './ingest.js';
import { runLoadBench } from './load.js';
import { runQueryBench } from './query.js';
import { envelope, machine, measure, printResult, writeJson, type BenchResult } from './lib/report.js';
import { runLocomo } from './retrieval-dialog.js';
import { runScifact } from './retrieval-beir.js';
import { runScale } from './scale.js';
import { VERSION } from '../src/version.js';

const BENCHMARKS = ['scale', 'locomo', 'scifact', 'ingest', 'load', 'overhead', 'query', 'answers', 'fuzz', 'cli', 'search-phases', 'embedder', 'shared-store'] as const;
/**
 * `--quick` without `--only`: the benchmarks whose quick variants together finish in under 5 minutes on
 * 2 cores (the others take minutes even when quick: `--only ingest --quick` etc. runs them).
 */
const QUICK_SET = ['scale', 'locomo', 'scifact', 'overhead', 'cli'] as const;
type BenchName = (typeof BENCHMARKS)[number];

function isBenchName(value: string): value is BenchName {
  return (BENCHMARKS as readonly string[]).includes(value);
}

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    only: { type: 'string' },
    locomo: { type: 'string' },
    scifact: { type: 'string' },
    split: { type: 'string', default: 'train' },
  },
});

const chosen = (values.only ?? (values.quick ? QUICK_SET : BENCHMARKS).join(','))
  .split(',')
  .map((name) => name.trim())
  .filter(Boolean);
const unknown = chosen.filter((name) => !isBenchName(name));
if (unknown.length > 0) {
  process.stderr.write(`unknown benchmark(s): ${unknown.join(', ')}; choose from ${BENCHMARKS.join(', ')}\n`);
  process.exit(2);
}

const host = machine();
process.stdout.write(
  `mem ${VERSION} benchmarks${values.quick ? ' (quick)' : ''}: ${chosen.join(', ')}\n` +
    `${host.cpu}, ${host.cores} cores, ${host.memoryGb} GB, ${host.os}, node ${host.node}\n`,
);

const results: BenchResult[] = [];
for (const name of chosen.filter(isBenchName)) {
  process.stderr.write(`\n> ${name}${values.quick ? ' (quick)' : ''}\n`);
  const result = await measure(() =>
    name === 'scale'
      ? runScale({ quick: values.quick })
      : name === 'locomo'
        ? runLocomo({ file: values.locomo, quick: values.quick })
        : name === 'scifact'
          ? runScifact({ dir: values.scifact, split: values.split, quick: values.quick })
          : name === 'query'
            ? runQueryBench({ quick: values.quick })
            : name === 'overhead'
              ? runOverhead({ quick: values.quick })
              : name === 'ingest'
                ? runIngestBench({ quick: values.quick })
                : name === 'load'
                  ? runLoadBench(values.quick ? { size: 1000, seconds: 10, ingest: 500 } : { size: 10_000, seconds: 60, ingest: 10_000 })
                : name === 'fuzz'
                  ? runFuzz({ quick: values.quick })
                : name === 'cli'
                  ? runCliBench({ quick: values.quick })
                : name === 'search-phases'
                  ? runSearchPhases({ quick: values.quick })
                : name === 'embedder'
                  ? runEmbedderBench({ quick: values.quick })
                : name === 'shared-store'
                  ? runSharedStore({ quick: values.quick })
                  : runAnswers({ quick: values.quick }),
  );
  printResult(result);
  results.push(result);
  // Written after every benchmark, so a long run that fails late keeps what it measured.
  writeJson('latest.json', envelope(results, values.quick));
}
process.stdout.write(`\nreport: bench/results/latest.json\n`);
