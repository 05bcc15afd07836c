/**
 * Entity and fact extraction quality of the built-in extractor on the labelled notes of
 * test/fixtures/extraction-eval.json: precision, recall and F1 per entity type, fact precision and recall,
 * precision per confidence value (calibration), and time per note. Writes bench/results/extraction.json.
 *
 *   node --import tsx bench/extraction.ts [--mistakes]
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BuiltinExtractor } from '../src/providers/builtin/builtin-extractor.js';
import { evaluate } from '../test/helpers/extraction-eval.js';

const extractor = new BuiltinExtractor();
const report = await evaluate(extractor);

const pad = (text: string | number, width: number) => String(text).padEnd(width);
console.log(`Built-in extractor (${extractor.modelId}) on ${report.notes} labelled notes\n`);
console.log(`${pad('type', 10)}${pad('P', 8)}${pad('R', 8)}${pad('F1', 8)}${pad('tp', 5)}${pad('fp', 5)}fn`);
for (const [type, score] of Object.entries(report.entities)) {
  if (score.tp + score.fp + score.fn === 0) continue;
  console.log(`${pad(type, 10)}${pad(score.precision.toFixed(3), 8)}${pad(score.recall.toFixed(3), 8)}${pad(score.f1.toFixed(3), 8)}${pad(score.tp, 5)}${pad(score.fp, 5)}${score.fn}`);
}
const f = report.facts;
console.log(`\nfacts     P ${f.precision.toFixed(3)}  R ${f.recall.toFixed(3)}  F1 ${f.f1.toFixed(3)}  (tp ${f.tp}, fp ${f.fp}, fn ${f.fn})`);
console.log('\nprecision by confidence:');
for (const bucket of report.calibration) console.log(`  ${bucket.confidence.toFixed(2)}  ${pad(bucket.facts, 4)} facts  precision ${bucket.precision.toFixed(3)}`);
const t = report.timing;
console.log(`\ntime per note: mean ${t.meanMs} ms, p50 ${t.p50Ms} ms, p95 ${t.p95Ms} ms, max ${t.maxMs} ms (first note, loading the NLP libraries: ${t.firstMs} ms)`);
if (process.argv.includes('--mistakes')) for (const mistake of report.mistakes) console.log(`  ${mistake.note} ${mistake.kind}: ${mistake.detail}`);

const dir = join(import.meta.dirname, 'results');
mkdirSync(dir, { recursive: true });
writeFileSync(
  join(dir, 'extraction.json'),
  `${JSON.stringify({ date: new Date().toISOString(), model: extractor.modelId, node: process.version, ...report }, null, 2)}\n`,
);
console.log(`\nwrote ${join('bench', 'results', 'extraction.json')}`);
