/**
 * Fits the answerers' parameters (src/core/answers/answer-parameters.ts) on LoCoMo-dev and reports each
 * choice with leave-one-conversation-out: for every conversation, the built-in answerer's rules (a variant of
 * RULE_VARIANTS) and the confidence calibration are fitted on the other three and applied to it; the held-out figures of each fold and
 * their mean are printed. With --write, the parameters fitted on all four replace answer-parameters.ts. Rerun
 * after any change to search scoring (the calibration stands on its relevance scale) or to the answerer.
 *
 *   node --import tsx bench/fit-answers.ts [--quick] [--home DIR] [--records FILE] [--write]
 *
 * --home keeps the loaded store in DIR (reused by the next run with the same data: loading takes minutes);
 * --records refits from the answers a previous run saved (bench/results/answers-records.json) without asking.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { AnswerParameters } from '../src/core/answers/answer-parameters.js';
import type { AnswerRules } from '../src/providers/builtin/builtin-language-model.js';
import { openAnswerHarness, type AnswerRecord } from './lib/answer-eval.js';
import { calibrationTable, fitAll, leaveOneOut, type FoldFigures } from './lib/answer-fit.js';
import { locomoFolds } from './lib/answer-sets.js';
import { REPO_ROOT } from './lib/daemon.js';
import { isMain, writeJson } from './lib/report.js';

const PARAMETERS_FILE = join(REPO_ROOT, 'src', 'core', 'answers', 'answer-parameters.ts');

/** The rule variants tried, simplest first (ties go to the first). */
export const RULE_VARIANTS: AnswerRules[] = [0, 0.1, 0.3].flatMap((questionPenalty) =>
  [false, true].flatMap((abstainOnQuestion) =>
    [1, 3].flatMap((window) =>
      [0, 0.1].flatMap((proximity) => [0, 5].map((focusWords) => ({ window, proximity, focusWords, questionPenalty, abstainOnQuestion }))),
    ),
  ),
).filter((variant) => variant.window > 1 || variant.proximity === 0);

export interface FitReport {
  readonly folds: FoldFigures[];
  readonly mean: Record<string, number>;
  readonly abstention: number;
  readonly falseAbstention: number;
  readonly calibration: ReturnType<typeof calibrationTable>;
  readonly fitted: AnswerParameters;
}

export function summarise(perVariant: readonly (readonly AnswerRecord[])[]): FitReport {
  const folds = leaveOneOut(RULE_VARIANTS, perVariant);
  const avg = (pick: (fold: FoldFigures) => number) => Math.round((folds.reduce((sum, fold) => sum + pick(fold), 0) / Math.max(1, folds.length)) * 1000) / 1000;
  const keys = Object.keys(folds[0]?.f1 ?? {});
  return {
    folds,
    mean: Object.fromEntries(keys.map((key) => [key, avg((fold) => fold.f1[key] ?? 0)])),
    abstention: avg((fold) => fold.abstention),
    falseAbstention: avg((fold) => fold.falseAbstention),
    calibration: calibrationTable(folds.flatMap((fold) => fold.scored)),
    fitted: fitAll(RULE_VARIANTS, perVariant),
  };
}

export function printReport(title: string, report: FitReport): void {
  console.log(`\n${title}: held-out token F1 per fold (categories 1-4, abstentions score 0)`);
  console.log('fold        multi-hop  temporal  open-dom  single-hop  overall  abstain(5)  false-abst(1-4)  rules');
  for (const fold of report.folds) {
    const f = fold.f1;
    console.log(
      `${fold.fold.padEnd(11)} ${String(f['1']).padEnd(10)} ${String(f['2']).padEnd(9)} ${String(f['3']).padEnd(9)} ${String(f['4']).padEnd(11)} ${String(f.overall).padEnd(8)} ${String(fold.abstention).padEnd(11)} ${String(fold.falseAbstention).padEnd(16)} ${JSON.stringify(fold.rules)}`,
    );
  }
  const m = report.mean;
  console.log(`${'mean'.padEnd(11)} ${String(m['1']).padEnd(10)} ${String(m['2']).padEnd(9)} ${String(m['3']).padEnd(9)} ${String(m['4']).padEnd(11)} ${String(m.overall).padEnd(8)} ${String(report.abstention).padEnd(11)} ${report.falseAbstention}`);
  console.log(`calibration of held-out answers (right = F1 >= 0.5), ECE ${report.calibration.ece}`);
  for (const row of report.calibration.rows) console.log(`  ${row.bin}  n ${String(row.n).padEnd(5)} mean confidence ${row.meanConfidence.toFixed(3)}  right ${row.rightShare.toFixed(3)}`);
}

function parametersSource(parameters: AnswerParameters): string {
  const points = (list: readonly (readonly [number, number])[]) => `[${list.map(([x, y]) => `[${x}, ${y}]`).join(', ')}]`;
  const rules = parameters.rules;
  const source = readFileSync(PARAMETERS_FILE, 'utf8');
  const head = source.slice(0, source.indexOf('export const ANSWER_PARAMETERS'));
  return `${head}export const ANSWER_PARAMETERS: AnswerParameters = {
  rules: { window: ${rules.window}, proximity: ${rules.proximity}, focusWords: ${rules.focusWords}, questionPenalty: ${rules.questionPenalty}, abstainOnQuestion: ${rules.abstainOnQuestion} },
  calibration: {
    facts: ${points(parameters.calibration.facts)},
    passages: ${points(parameters.calibration.passages)},
  },
};
`;
}

async function answerRecords(values: { quick: boolean; home?: string; records?: string }): Promise<AnswerRecord[][]> {
  if (values.records) {
    const saved = JSON.parse(readFileSync(values.records, 'utf8')) as { variants: unknown; records: AnswerRecord[][] };
    if (JSON.stringify(saved.variants) !== JSON.stringify(RULE_VARIANTS)) throw new Error(`${values.records} was answered with other rule variants: run without --records`);
    return saved.records;
  }
  const folds = locomoFolds(undefined, values.quick ? 2 : undefined);
  const harness = await openAnswerHarness(folds, values.home ? { home: values.home } : {});
  try {
    const perVariant = await harness.run(folds, RULE_VARIANTS, { label: 'LoCoMo-dev' });
    console.log(`records: ${writeJson('answers-records.json', { variants: RULE_VARIANTS, records: perVariant })}`);
    return perVariant;
  } finally {
    await harness.close();
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { quick: { type: 'boolean', default: false }, home: { type: 'string' }, records: { type: 'string' }, write: { type: 'boolean', default: false } },
  });
  const report = summarise(await answerRecords(values));
  printReport('LoCoMo-dev', report);
  console.log(`\nfitted on all folds: ${JSON.stringify(report.fitted)}`);
  if (values.write) {
    writeFileSync(PARAMETERS_FILE, parametersSource(report.fitted));
    console.log('wrote src/core/answers/answer-parameters.ts');
  }
}

if (isMain(import.meta.url)) await main();
