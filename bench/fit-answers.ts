/**
 * Fits the answerers' parameters (src/core/answers/answer-parameters.ts) on LoCoMo-dev and reports each
 * choice with leave-one-conversation-out: for every conversation, the built-in answerer's rules (a variant of
 * RULE_VARIANTS), the abstention model and the confidence calibration are fitted on the other three and applied to it; the held-out figures of each fold and
 * their mean are printed. With --write, the parameters fitted on all four replace answer-parameters.ts. Rerun
 * after any change to search scoring (the calibration stands on its relevance scale) or to the answerer.
 *
 *   node --import tsx bench/fit-answers.ts [--quick] [--home DIR] [--requests FILE] [--write]
 *
 * --home keeps the loaded store in DIR (reused by the next run with the same data: loading takes minutes);
 * --requests refits from the requests a previous run saved (bench/results/answers-requests.json: what
 * retrieval gave the answerer; each own set's answers-requests-<set>.json beside it, asked afresh when
 * missing), without the store: for a change to the answerer alone. After a change to search, run without it.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import type { AnswerParameters } from '../src/core/answers/answer-parameters.js';
import { BuiltinLanguageModel, type AnswerRules } from '../src/providers/builtin/builtin-language-model.js';
import type { EmbeddingModel } from '../src/providers/spec.js';
import { BuiltinEmbeddingModel } from '../src/providers/builtin/builtin-embedding-model.js';
import { answerAll, openAnswerHarness, type AnswerRecord, type AskedQuestion } from './lib/answer-eval.js';
import { calibrationTable, figuresOf, fitAll, heldOut, pickedIndex, withAbstention, type FoldFigures } from './lib/answer-fit.js';
import { fitLineRanker, lineSamples, type LineSamples } from './lib/line-ranker.js';
import { locomoFolds, OWN_SETS, ownFolds, type AnswerFold } from './lib/answer-sets.js';
import { locomoEvidence, type Evidence } from './lib/evidence.js';
import { REPO_ROOT } from './lib/daemon.js';
import { isMain, writeJson } from './lib/report.js';

const PARAMETERS_FILE = join(REPO_ROOT, 'src', 'core', 'answers', 'answer-parameters.ts');

/**
 * The rule variants tried, simplest first (ties go to the first). Dimensions every fold settled the same way
 * in the earlier runs are fixed at that value (bench/README.md): the proximity weight and focus phrases at 0,
 * three sentences' candidates, no answer when the best line is a question, and (every fold of the runs of
 * 2026-11-24) a question penalty of 0.1, three list items, echo trimmed and quoted titles: a grid of 8 keeps
 * the fit to minutes on a loaded host, where 128 took a quarter of an hour. A question's short form of a
 * name is read as the name it starts ("Mel": shortNames) in every variant, as the speaker matching already
 * reads it: only one conversation writes short names, so no fold holding it out could choose the rule.
 */
export const RULE_VARIANTS: AnswerRules[] = [0, 0.3].flatMap((fillerPenalty) =>
  [0, 0.1].flatMap((speakerWeight) =>
    [0, 0.2].map((newsWeight) => ({ window: 3, proximity: 0, focusWords: 0, questionPenalty: 0.1, abstainOnQuestion: true, listItems: 3, fillerPenalty, speakerWeight, newsWeight, trimEcho: true, quotedTitles: true, shortNames: true })),
  ),
);

export interface FitReport {
  readonly folds: FoldFigures[];
  readonly mean: Record<string, number>;
  readonly abstention: number;
  readonly falseAbstention: number;
  readonly calibration: ReturnType<typeof calibrationTable>;
  readonly fitted: AnswerParameters;
}

/**
 * The held-out report and the parameters to ship. Two stages, each choice made on the training folds only:
 * the grid of RULE_VARIANTS (their hand-set line score), then, with the asked questions, refinements of the
 * variant picked (the line ranker, AnswerRules.lineWeights fitted on the training folds' lines; list answers
 * of names), each kept only when it beats that variant on the training folds (pickVariant's value).
 */
export async function summarise(
  perVariant: readonly (readonly AnswerRecord[])[],
  ranker?: { asked: readonly AskedQuestion[]; embedder: EmbeddingModel; evidence?: Evidence },
): Promise<FitReport> {
  const foldIds = [...new Set((perVariant[0] ?? []).map((record) => record.fold))];
  let lines: LineSamples[] = [];
  if (ranker) lines = await lineSamples(ranker.asked, new BuiltinLanguageModel(ranker.embedder, RULE_VARIANTS[0] as AnswerRules), ranker.evidence);
  /**
   * The grid's pick for a split and its refinements, each a variant pickVariant weighs on the split's
   * training folds: with list questions answered by names (listNames), and with the line ranker fitted on
   * those folds (lineWeights), alone and together; then, on top of both, named things answered by their
   * name (namedThings), and list items split into the things each line lists (listParts); then lists of
   * five items rather than three (listItems); then "who" answered by a tie when a line names no one
   * (tieAnswers); last, "what" answered with the words a line says in the question's gap after two of its
   * words, or after one (gapRun), and from the first of the best two or three lines that fills the gap
   * (gapWindow); with either window, "why" answered with the reason the line gives (reasons); last, on top of
   * those, a question that asks whether answered "Yes" or "No" from its best line (yesNo), then the gap
   * filled by the line of the best three or five that says the most of the question's phrase (gapLongest),
   * and, where none fills it, "what X" answered with X as one of those lines qualifies it (headPhrases);
   * then what a line names before the question's own modifier (objectsBefore), an answer that only
   * announces what follows its dash answered with what follows (elaborations), answers less the times
   * they say (timeless), and a named thing answered with the line's name nearest the question's words
   * (nearestNames).
   */
  const stage = async (fold?: string) => {
    const index = pickedIndex(perVariant, fold);
    const rules = RULE_VARIANTS[index] as AnswerRules;
    const ranked = ranker ? fitLineRanker(lines, new Set(foldIds.filter((id) => id !== fold))) : undefined;
    if (ranked) console.log(`  line ranker ${fold ? `without ${fold}` : 'on all folds'}: evidence bump ${ranked.bump}, L2 ${ranked.lambda}`);
    const weights = ranked?.weights;
    if (!ranker) return { variants: [rules], records: [perVariant[index] ?? []] };
    const named = { ...rules, ...(weights ? { lineWeights: weights } : {}), listNames: true };
    // Each step adds to the one before: named things, list parts, named lists, five items, ties, then the
    // gap rules on top of all of those.
    const lists = { ...named, namedThings: true, listParts: true, namedLists: true, listItems: 5, tieAnswers: true };
    const gaps = { ...lists, gapRun: 1 };
    const refined: AnswerRules[] = [
      { ...rules, listNames: true },
      ...(weights ? [{ ...rules, lineWeights: weights }, named] : []),
      { ...named, namedThings: true },
      { ...named, namedThings: true, listParts: true },
      { ...named, namedThings: true, listParts: true, namedLists: true },
      { ...named, namedThings: true, listParts: true, namedLists: true, listItems: 5 },
      lists,
      { ...lists, gapRun: 2 },
      gaps,
      ...[2, 3].map((gapWindow) => ({ ...gaps, gapWindow })),
      ...[2, 3].map((gapWindow) => ({ ...gaps, gapWindow, reasons: true })),
      ...[2, 3].map((gapWindow) => ({ ...gaps, gapWindow, reasons: true, yesNo: true })),
      ...[3, 5].map((gapWindow) => ({ ...gaps, gapWindow, reasons: true, yesNo: true, gapLongest: true })),
      ...[3, 5].map((gapWindow) => ({ ...gaps, gapWindow, reasons: true, yesNo: true, gapLongest: true, headPhrases: true })),
      ...[3, 5].map((gapWindow) => ({ ...gaps, gapWindow, reasons: true, yesNo: true, gapLongest: true, headPhrases: true, objectsBefore: true })),
      ...[3, 5].map((gapWindow) => ({ ...gaps, gapWindow, reasons: true, yesNo: true, gapLongest: true, headPhrases: true, objectsBefore: true, elaborations: true })),
      ...[3, 5].map((gapWindow) => ({ ...gaps, gapWindow, reasons: true, yesNo: true, gapLongest: true, headPhrases: true, objectsBefore: true, elaborations: true, timeless: true })),
      ...[3, 5].map((gapWindow) => ({ ...gaps, gapWindow, reasons: true, yesNo: true, gapLongest: true, headPhrases: true, objectsBefore: true, elaborations: true, timeless: true, nearestNames: true })),
    ];
    const records = await answerAll(ranker.asked, refined, ranker.embedder, `refinements${fold ? ` without ${fold}` : ''}`);
    return { variants: [rules, ...refined], records: [perVariant[index] ?? [], ...records] };
  };
  const folds: FoldFigures[] = [];
  for (const fold of foldIds) {
    const { variants, records } = await stage(fold);
    folds.push(heldOut(fold, variants, records));
  }
  const all = await stage();
  const avg = (pick: (fold: FoldFigures) => number) => Math.round((folds.reduce((sum, fold) => sum + pick(fold), 0) / Math.max(1, folds.length)) * 1000) / 1000;
  const keys = Object.keys(folds[0]?.f1 ?? {});
  return {
    folds,
    mean: Object.fromEntries(keys.map((key) => [key, avg((fold) => fold.f1[key] ?? 0)])),
    abstention: avg((fold) => fold.abstention),
    falseAbstention: avg((fold) => fold.falseAbstention),
    calibration: calibrationTable(folds.flatMap((fold) => fold.scored)),
    fitted: fitAll(all.variants, all.records),
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
  const { abstention, ...rules } = parameters.rules;
  const fields = Object.entries(rules).map(([key, value]) => `${key}: ${JSON.stringify(value)}`);
  if (abstention) fields.push(`abstention: { bias: ${abstention.bias}, weights: [${abstention.weights.join(', ')}] }`);
  const source = readFileSync(PARAMETERS_FILE, 'utf8');
  const head = source.slice(0, source.indexOf('export const ANSWER_PARAMETERS'));
  return `${head}export const ANSWER_PARAMETERS: AnswerParameters = {
  rules: { ${fields.join(', ')} },
  calibration: {
    facts: ${points(parameters.calibration.facts)},
    passages: ${points(parameters.calibration.passages)},
  },
};
`;
}

/** Where a run saves what retrieval gave the answerer, per set (the input of --requests). */
const LOCOMO_REQUESTS = 'answers-requests.json';
const requestsOf = (set: string) => `answers-requests-${set}.json`;

interface OwnAsked {
  readonly set: (typeof OWN_SETS)[number];
  readonly asked: AskedQuestion[];
}

/**
 * The sets' asked questions: read back from --requests (the LoCoMo file named, each own set's beside it), or
 * asked on a loaded store and saved for the next run. An own set whose requests are not beside the LoCoMo
 * file is asked afresh (a minute each); LoCoMo takes several.
 */
async function askedQuestions(values: { quick: boolean; home?: string; requests?: string }): Promise<{ locomo: AskedQuestion[]; own: OwnAsked[] }> {
  const read = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as AskedQuestion[];
  const ask = async (label: string, file: string, folds: AnswerFold[], home: string | undefined) => {
    const harness = await openAnswerHarness(folds, home ? { home } : {});
    try {
      const asked = await harness.ask(folds, { label });
      console.log(`requests: ${writeJson(file, asked)}`);
      return asked;
    } finally {
      await harness.close();
    }
  };
  const own: OwnAsked[] = [];
  for (const set of OWN_SETS) {
    const saved = values.requests ? join(dirname(values.requests), requestsOf(set.name)) : undefined;
    own.push({
      set,
      asked: saved && existsSync(saved) ? read(saved) : await ask(set.name, requestsOf(set.name), ownFolds(set.file), values.home ? `${values.home}-${set.name}` : undefined),
    });
  }
  const locomo = values.requests ? read(values.requests) : await ask('locomo', LOCOMO_REQUESTS, locomoFolds(undefined, values.quick ? 2 : undefined), values.home);
  return { locomo, own };
}

/** An own set answered with the parameters fitted on LoCoMo (never fitted on it). */
function printOwn(set: OwnAsked['set'], records: readonly AnswerRecord[], fitted: AnswerParameters): void {
  const applied = withAbstention(records, fitted.rules.abstention);
  const { scored, ...figures } = figuresOf(applied, fitted.calibration);
  const f = figures.f1;
  console.log(`
${set.name} (${relative(REPO_ROOT, set.file)}) with the parameters fitted on LoCoMo-dev, never fitted on it:`);
  console.log(`  multi-hop ${f['1']} (${figures.counts['1']})  temporal ${f['2']} (${figures.counts['2']})  single-hop ${f['4']} (${figures.counts['4']})  overall ${f.overall} (${figures.counts.overall})`);
  console.log(`  abstention (5) ${figures.abstention} (${figures.counts['5']})  false abstention (1-4) ${figures.falseAbstention}  ECE ${calibrationTable(scored).ece}`);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { quick: { type: 'boolean', default: false }, home: { type: 'string' }, requests: { type: 'string' }, write: { type: 'boolean', default: false } },
  });
  const started = Date.now();
  const asked = await askedQuestions(values);
  const embedder = new BuiltinEmbeddingModel(1);
  await embedder.init();
  try {
    const report = await summarise(await answerAll(asked.locomo, RULE_VARIANTS, embedder, 'LoCoMo-dev'), { asked: asked.locomo, embedder, evidence: locomoEvidence() });
    printReport('LoCoMo-dev', report);
    console.log(`\nfitted on all folds: ${JSON.stringify(report.fitted)}`);
    for (const own of asked.own) {
      const [records] = await answerAll(own.asked, [report.fitted.rules], embedder, own.set.name);
      printOwn(own.set, records ?? [], report.fitted);
    }
    if (values.write) {
      writeFileSync(PARAMETERS_FILE, parametersSource(report.fitted));
      console.log('wrote src/core/answers/answer-parameters.ts');
    }
  } finally {
    await embedder.close();
  }
  console.log(`took ${Math.round((Date.now() - started) / 1000)} s`);
}

if (isMain(import.meta.url)) await main();
