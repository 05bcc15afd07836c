/**
 * The ceiling of the built-in answerer on LoCoMo's single-hop and multi-hop questions: is the gold answer
 * there at all to pick? For each question, the best token F1 any span could reach (an oracle that sees the
 * gold answer) among (a) the memories ask retrieves now (top `limit`, with ask's relevance filter), (b) the
 * top 30 and 50 of the same search, and (c) the knowledge graph's facts about the entities the question names
 * (their other side, and the excerpt that states them). A multi-hop answer is a list: its oracle takes, for
 * every comma-separated part of the gold answer, the best span anywhere among the memories, then averages
 * (LoCoMo's scoring of category 1). Present = oracle F1 >= 0.5. Tells whether the lever is retrieval depth,
 * the facts, or the choice of span.
 *
 * Then whether a deeper pool helps the answerer as it is: every question asked with 30 memories, answered by
 * the shipped rules from the first 10, 15, 20 and 30 of them (the line ranker refitted on each pool, in
 * sample: an upper bound of what a fitted depth could give), token F1 per category, no abstention.
 *
 *   node --import tsx bench/answer-ceiling.ts --home <loaded LoCoMo store (fit-answers --home)> [--quick]
 */
import { parseArgs } from 'node:util';
import { analyseQuestion } from '../src/core/answers/question.js';
import { contentWords } from '../src/core/answers/text.js';
import { ANSWER_PARAMETERS } from '../src/core/answers/answer-parameters.js';
import { ASK_THRESHOLD } from '../src/core/answers/ask-service.js';
import { BuiltinEmbeddingModel } from '../src/providers/builtin/builtin-embedding-model.js';
import { BuiltinLanguageModel } from '../src/providers/builtin/builtin-language-model.js';
import { answerAll, openAnswerHarness, type AskedQuestion } from './lib/answer-eval.js';
import { fitLineWeights, lineSamples } from './lib/line-ranker.js';
import { answerTokens, bestSpanF1, oracleF1 } from './lib/answer-score.js';
import { CATEGORY_NAMES, locomoFolds } from './lib/answer-sets.js';
import { progress } from './lib/pool.js';
import { isMain, writeJson } from './lib/report.js';

const DEPTHS = [10, 30, 50] as const;
/** Pools the answerer is given in the second part (of the 30 asked). */
const POOLS = [10, 15, 20, 30] as const;

interface CeilingRow {
  readonly fold: string;
  readonly category: number;
  readonly question: string;
  readonly gold: string;
  /** Oracle F1 among the top k retrieved (k = 10 with ask's filter, 30, 50). */
  readonly depth: Record<number, number>;
  /** Rank (1-based) of the first memory holding a span of F1 >= 0.5 (single-hop), or 0. */
  readonly firstRank: number;
  readonly facts: number;
  readonly factSide: number;
  readonly factExcerpt: number;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { home: { type: 'string' }, quick: { type: 'boolean', default: false } } });
  if (!values.home) throw new Error('--home <loaded LoCoMo store> is required (bench/fit-answers.ts --home builds one)');
  const folds = locomoFolds(undefined, values.quick ? 2 : undefined);
  const harness = await openAnswerHarness(folds, { home: values.home });
  const rows: CeilingRow[] = [];
  let deep: AskedQuestion[] = [];
  try {
    const { deps } = harness;
    const questions = folds.flatMap((fold) => fold.questions.filter((q) => q.category === 1 || q.category === 4).map((question) => ({ fold, question })));
    const bar = progress('ceiling', questions.length);
    for (const { fold, question } of questions) {
      const { hits } = await deps.memories.search(deps.ownerId, {
        query: question.question,
        limit: 50,
        offset: 0,
        threshold: 0,
        hybrid: true,
        filter: { spaceId: fold.id },
      });
      const words = new Set(contentWords(question.question));
      const text = (hit: (typeof hits)[number]) => `${hit.memory.author ? `${hit.memory.author}: ` : ''}${hit.memory.content}`;
      const asked = hits.slice(0, 10).filter((hit) => hit.score >= ASK_THRESHOLD || contentWords(`${hit.memory.title} ${hit.memory.content}`).some((word) => words.has(word)));
      const depth: Record<number, number> = {};
      for (const k of DEPTHS) depth[k] = oracleF1((k === 10 ? asked : hits.slice(0, k)).map(text), question.gold, question.category);
      const goldTokens = answerTokens(question.gold);
      const firstRank = hits.findIndex((hit) => bestSpanF1(text(hit), goldTokens) >= 0.5) + 1;
      const names = analyseQuestion(question.question).names;
      const named = names.length > 0 ? await deps.knowledge.entitiesNamed(deps.ownerId, names) : [];
      const facts = named.length > 0 ? await deps.knowledge.factsAbout(deps.ownerId, named.map(({ entity }) => entity.id)) : [];
      const ids = new Set(named.map(({ entity }) => entity.id));
      const sides = facts.map((fact) => (ids.has(fact.subjectId) ? fact.object : fact.subject));
      rows.push({
        fold: fold.id,
        category: question.category,
        question: question.question,
        gold: question.gold,
        depth,
        firstRank,
        facts: facts.length,
        factSide: oracleF1(sides, question.gold, question.category),
        factExcerpt: oracleF1(facts.map((fact) => fact.source.excerpt), question.gold, question.category),
      });
      bar.tick();
    }
    bar.done();
    deep = await harness.ask(folds, { label: 'ask 30', limit: 30 });
  } finally {
    await harness.close();
  }
  const share = (list: readonly CeilingRow[], pick: (row: CeilingRow) => number) => (list.length === 0 ? 0 : Math.round((list.filter((row) => pick(row) >= 0.5).length / list.length) * 1000) / 1000);
  const mean = (list: readonly CeilingRow[], pick: (row: CeilingRow) => number) => (list.length === 0 ? 0 : Math.round((list.reduce((sum, row) => sum + pick(row), 0) / list.length) * 1000) / 1000);
  console.log('\ncategory     fold     n    present@10  @30    @50    facts  | oracle F1 @10  @30    @50    facts(side/excerpt)  with facts');
  const groups = [1, 4].flatMap((category) => [...folds.map((fold) => fold.id), 'all'].map((fold) => ({ category, fold })));
  const summary = groups.map(({ category, fold }) => {
    const list = rows.filter((row) => row.category === category && (fold === 'all' || row.fold === fold));
    const line = {
      category: CATEGORY_NAMES[category],
      fold,
      n: list.length,
      present: Object.fromEntries(DEPTHS.map((k) => [k, share(list, (row) => row.depth[k] ?? 0)])),
      presentFacts: share(list, (row) => Math.max(row.factSide, row.factExcerpt)),
      oracle: Object.fromEntries(DEPTHS.map((k) => [k, mean(list, (row) => row.depth[k] ?? 0)])),
      oracleFactSide: mean(list, (row) => row.factSide),
      oracleFactExcerpt: mean(list, (row) => row.factExcerpt),
      withFacts: list.filter((row) => row.facts > 0).length,
    };
    console.log(
      `${String(line.category).padEnd(12)} ${fold.padEnd(8)} ${String(line.n).padEnd(4)} ${DEPTHS.map((k) => String(line.present[k]).padEnd(6)).join(' ')} ${String(line.presentFacts).padEnd(6)} | ${DEPTHS.map((k) => String(line.oracle[k]).padEnd(6)).join(' ')} ${line.oracleFactSide}/${line.oracleFactExcerpt}  ${line.withFacts}`,
    );
    return line;
  });
  const ranks = rows.filter((row) => row.category === 4 && row.firstRank > 0).map((row) => row.firstRank);
  const buckets = [1, 3, 5, 10, 20, 30, 50].map((k) => [k, ranks.filter((rank) => rank <= k).length] as const);
  console.log(`single-hop: first memory holding a span of F1 >= 0.5 within rank k (of ${rows.filter((row) => row.category === 4).length}): ${buckets.map(([k, n]) => `${k}: ${n}`).join(', ')}`);
  const pools = await answerPools(deep);
  console.log(`report: ${writeJson('answer-ceiling.json', { summary, ranks: Object.fromEntries(buckets), pools, rows })}`);
}

/** Token F1 per category when the answerer reads the first k of the memories asked (see the header). */
async function answerPools(deep: readonly AskedQuestion[]): Promise<Record<number, Record<string, number>>> {
  const embedder = new BuiltinEmbeddingModel(1);
  await embedder.init();
  const rules = { ...ANSWER_PARAMETERS.rules, abstention: undefined };
  const out: Record<number, Record<string, number>> = {};
  try {
    console.log('\npool  multi-hop  temporal  open-dom  single-hop  overall (1-4; shipped rules, line ranker refitted on the pool)');
    for (const k of POOLS) {
      const asked = deep.map((entry) => (entry.request ? { ...entry, request: { ...entry.request, sources: entry.request.sources.slice(0, k) } } : entry));
      const weights = fitLineWeights(await lineSamples(asked, new BuiltinLanguageModel(embedder, rules)));
      const [records = []] = await answerAll(asked, [{ ...rules, ...(weights ? { lineWeights: weights } : {}) }], embedder, `pool ${k}`);
      const mean = (list: readonly { f1: number }[]) => (list.length === 0 ? 0 : Math.round((list.reduce((sum, record) => sum + record.f1, 0) / list.length) * 1000) / 1000);
      const figures: Record<string, number> = Object.fromEntries([1, 2, 3, 4].map((category) => [String(category), mean(records.filter((record) => record.category === category))]));
      figures.overall = mean(records.filter((record) => record.category <= 4));
      out[k] = figures;
      console.log(`${String(k).padEnd(5)} ${String(figures['1']).padEnd(10)} ${String(figures['2']).padEnd(9)} ${String(figures['3']).padEnd(9)} ${String(figures['4']).padEnd(11)} ${figures.overall}`);
    }
  } finally {
    await embedder.close();
  }
  return out;
}

if (isMain(import.meta.url)) await main();
