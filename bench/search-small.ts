/**
 * The search score in small collections: does a default search (threshold 0.5) keep its meaning when an
 * account holds one, three, five or ten memories? The fitted data (LoCoMo, SciFact, the forty notes) are
 * collections of forty memories and more, so this is measured apart, on held-out folds:
 *
 *   node --import tsx bench/search-small.ts [--sizes 1,3,5,10] [--folds bench/results/fit-folds] [--no-cohort]
 *
 * For every paraphrase of test/fixtures/everyday-notes.ts (fold = index mod 4, as bench/fit-search.ts folds
 * them) and every size, an account holds its note and size - 1 other notes drawn at random (seeded). Three
 * queries run in it with the model fitted without the paraphrase's fold (`--folds`, written by
 * fit-search.ts): the paraphrase, one rare word of the note (a word the user remembers), and one to three
 * made-up words. Reported per size:
 *   - paraphrase: share of notes scored >= 0.5 (and first), and other notes >= 0.5 per query;
 *   - word: share of notes scored >= 0.5 and first;
 *   - made-up: share of queries that return nothing at >= 0.5.
 * `--no-cohort` ranks without the search cohort (src/core/search/cohort.ts), for the comparison; `--cohort-pack
 * K` lets K of the cohort's nearest texts into the pack (with the folds fit-search.ts wrote for that K).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { MemoryService } from '../src/core/memory-service.js';
import { Cohort } from '../src/core/search/cohort.js';
import { parseSearchModel, type SearchModel } from '../src/core/search/model.js';
import { SearchEngine } from '../src/core/search/search-engine.js';
import { isStopword, tokens } from '../src/core/search/terms.js';
import { embedMany } from '../src/providers/embed-many.js';
import { BuiltinEmbeddingModel } from '../src/providers/builtin/builtin-embedding-model.js';
import { openLanceStore } from '../src/store/lancedb/lancedb-store.js';
import { EVERYDAY_NOTES, EVERYDAY_PARAPHRASES } from '../test/fixtures/everyday-notes.js';
import { REPO_ROOT } from './lib/daemon.js';
import { createRandom } from './lib/notes.js';
import { progress } from './lib/pool.js';

const FOLDS = 4;
const THRESHOLD = 0.5;
const SEED = 20261125;

interface Tally {
  paraphrases: number;
  paraphraseKept: number;
  paraphraseFirst: number;
  othersKept: number;
  words: number;
  wordKept: number;
  madeUp: number;
  madeUpSilent: number;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      sizes: { type: 'string', default: '1,3,5,10' },
      folds: { type: 'string', default: join(REPO_ROOT, 'bench', 'results', 'fit-folds') },
      'no-cohort': { type: 'boolean', default: false },
      'cohort-pack': { type: 'string' },
    },
  });
  const sizes = values.sizes.split(',').map(Number).filter((size) => size >= 1 && size <= EVERYDAY_NOTES.length);
  const models: SearchModel[] = Array.from({ length: FOLDS }, (_, fold) => {
    const file = join(values.folds, `notes-${fold}.json`);
    return parseSearchModel(readFileSync(file, 'utf8'), file);
  });
  const home = mkdtempSync(join(tmpdir(), 'mem-search-small-'));
  const embedder = new BuiltinEmbeddingModel(2);
  await embedder.init();
  const storage = await openLanceStore({ uri: home, vectorSpace: { modelId: embedder.modelId, dimension: embedder.dimension } });
  const random = createRandom(SEED);
  const letters = (from: string) => from[Math.floor(random() * from.length)] ?? 'a';
  const madeUpWord = () => Array.from({ length: 3 + Math.floor(random() * 2) }, () => letters('bdfgklmnprstvz') + letters('aeiou')).join('') + letters('bdfgklmnprstvz');
  try {
    const memories = new MemoryService({ storage, embedder });
    const cohort = new Cohort(embedder);
    const engines = models.map(
      (model) =>
        new SearchEngine({
          modelId: embedder.modelId,
          model,
          embedQuery: async (text) => {
            const [vector] = await embedMany(embedder, [text.trim()]);
            if (!vector) throw new Error('no vector');
            return vector;
          },
          ...(values['no-cohort'] ? {} : { cohort: (vector: Float32Array) => cohort.nearest(vector, values['cohort-pack'] ? Number(values['cohort-pack']) : undefined) }),
        }),
    );
    const table: Record<string, number | string>[] = [];
    let account = 0;
    for (const size of sizes) {
      const tally: Tally = { paraphrases: 0, paraphraseKept: 0, paraphraseFirst: 0, othersKept: 0, words: 0, wordKept: 0, madeUp: 0, madeUpSilent: 0 };
      const bar = progress(`${size} memories`, EVERYDAY_PARAPHRASES.length);
      for (const [index, [paraphrase, fragment]] of EVERYDAY_PARAPHRASES.entries()) {
        const engine = engines[index % FOLDS];
        const target = EVERYDAY_NOTES.findIndex((note) => note.includes(fragment));
        if (!engine || target < 0) throw new Error(`no note holds "${fragment}"`);
        const others = EVERYDAY_NOTES.map((_, at) => at).filter((at) => at !== target);
        const chosen = [target];
        while (chosen.length < size) chosen.push(others.splice(Math.floor(random() * others.length), 1)[0] ?? target);
        const accountId = `small-${account++}`;
        let targetId = '';
        for (const at of chosen) {
          const saved = await memories.save(accountId, { content: EVERYDAY_NOTES[at] ?? '' });
          if (at === target) targetId = saved.id;
        }
        const store = storage.memories(accountId);
        const scores = async (query: string) => {
          const { ranked } = await engine.rank(store, { query, limit: 10, offset: 0, threshold: 0, hybrid: true, filter: {} });
          return ranked;
        };
        const asked = await scores(paraphrase);
        tally.paraphrases += 1;
        const hit = asked.find((entry) => entry.memoryId === targetId);
        if (hit && hit.score >= THRESHOLD) tally.paraphraseKept += 1;
        if (hit && hit.score >= THRESHOLD && asked[0]?.memoryId === targetId) tally.paraphraseFirst += 1;
        tally.othersKept += asked.filter((entry) => entry.memoryId !== targetId && entry.score >= THRESHOLD).length;

        const words = tokens(EVERYDAY_NOTES[target] ?? '').filter((word) => word.length >= 4 && !isStopword(word) && !/^\d+$/.test(word));
        const word = words[Math.floor(random() * words.length)];
        if (word) {
          const found = await scores(word);
          tally.words += 1;
          if (found[0]?.memoryId === targetId && (found[0]?.score ?? 0) >= THRESHOLD) tally.wordKept += 1;
        }

        const madeUp = Array.from({ length: 1 + Math.floor(random() * 3) }, madeUpWord).join(' ');
        const noise = await scores(madeUp);
        tally.madeUp += 1;
        if (!noise.some((entry) => entry.score >= THRESHOLD)) tally.madeUpSilent += 1;
        bar.tick();
      }
      bar.done();
      const share = (part: number, whole: number) => (whole > 0 ? Math.round((1000 * part) / whole) / 10 : 0);
      table.push({
        memories: size,
        'paraphrase >= 0.5 %': share(tally.paraphraseKept, tally.paraphrases),
        'paraphrase first >= 0.5 %': share(tally.paraphraseFirst, tally.paraphrases),
        'other notes >= 0.5 per query': Math.round((100 * tally.othersKept) / Math.max(1, tally.paraphrases)) / 100,
        'word first >= 0.5 %': share(tally.wordKept, tally.words),
        'made-up silent %': share(tally.madeUpSilent, tally.madeUp),
      });
    }
    console.log(`held-out folds from ${values.folds}${values['no-cohort'] ? ', without the cohort' : ''}:`);
    console.table(table);
  } finally {
    await storage.close();
    await embedder.close();
    rmSync(home, { recursive: true, force: true });
  }
}

await main();
