import { execFile } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { z } from 'zod';
import { REPO_ROOT } from './daemon.js';

const execFileAsync = promisify(execFile);

/**
 * The evaluation tools and data live next to the repository (../shared), never inside it. Resolved through
 * symlinks: the scorers only run their command line when started by their real path.
 */
const sharedPath = resolve(REPO_ROOT, '..', 'shared');
export const SHARED_DIR = existsSync(sharedPath) ? realpathSync(sharedPath) : sharedPath;
export const LOCOMO_SCORER = resolve(SHARED_DIR, 'tools', 'locomo-score.mjs');
export const BEIR_SCORER = resolve(SHARED_DIR, 'tools', 'beir-score.mjs');

/** Paths on the command line are relative to the repository root (not to the current directory). */
export function fromRepo(path: string): string {
  return resolve(REPO_ROOT, path);
}

async function node(args: readonly string[]): Promise<string> {
  const { stdout } = await execFileAsync(process.execPath, args, { cwd: REPO_ROOT, maxBuffer: 64 * 1024 * 1024 });
  return stdout;
}

// ---- LoCoMo -----------------------------------------------------------------------------------------

const LocomoMetrics = z.object({
  n: z.number(),
  r1: z.number().nullable(),
  r5: z.number().nullable(),
  r10: z.number().nullable(),
  ndcg10: z.number().nullable(),
});
export type LocomoMetrics = z.infer<typeof LocomoMetrics>;

/** The part of `locomo-score.mjs --json` the benchmark reads. */
const LocomoScore = z.object({
  conversations: z.number(),
  turns: z.number(),
  skipped: z.object({ noEvidence: z.number(), droppedEvidenceIds: z.number(), missingInRun: z.number() }),
  byCategory: z.record(z.string(), LocomoMetrics.extend({ name: z.string() })),
  overall: LocomoMetrics,
});
export type LocomoScore = z.infer<typeof LocomoScore>;

/** Scores a run file against a LoCoMo file; without a run, the scorer's own BM25 baseline. */
export async function scoreLocomo(file: string, runFile: string | null): Promise<LocomoScore> {
  const stdout = await node([LOCOMO_SCORER, file, ...(runFile ? ['--run', runFile] : []), '--json']);
  return LocomoScore.parse(JSON.parse(stdout));
}

// ---- BEIR -------------------------------------------------------------------------------------------

/** The part of `beir-score.mjs --json` the benchmark reads. */
const BeirScore = z.object({
  documents: z.number().nullable(),
  judgedQueries: z.number(),
  judgements: z.number(),
  missingInRun: z.number(),
  metrics: z.object({
    ndcg10: z.number().nullable(),
    recall10: z.number().nullable(),
    recall100: z.number().nullable(),
    mrr10: z.number().nullable(),
  }),
});
export type BeirScore = z.infer<typeof BeirScore>;

/**
 * Calls the scorer's exported `evaluate` in a child process, as its command line would. Needed because
 * beir-score.mjs only runs its main() when the script is called `beir-baseline.mjs` (its name upstream),
 * so `node beir-score.mjs ... --json` prints nothing.
 */
const EVALUATE_SCRIPT = `
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
const [tool, dir, split, runFile] = process.argv.slice(1);
const { evaluate } = await import(pathToFileURL(tool).href);
const run = runFile ? new Map(Object.entries(JSON.parse(readFileSync(runFile, 'utf8'))).map(([q, ids]) => [q, ids.map(String)])) : null;
const { run: _omit, ...report } = evaluate(dir, { split, run });
process.stdout.write(JSON.stringify(report));
`;

export interface BeirScoring {
  readonly score: BeirScore;
  /** How the scorer was invoked: its command line, or its exported evaluate() (see EVALUATE_SCRIPT). */
  readonly via: 'cli' | 'evaluate()';
}

/** Scores a run file against a BEIR folder; without a run, the scorer's own BM25 baseline. */
export async function scoreBeir(dir: string, split: string, runFile: string | null): Promise<BeirScoring> {
  const stdout = await node([BEIR_SCORER, dir, '--split', split, ...(runFile ? ['--run', runFile] : []), '--json']);
  if (stdout.trim()) return { score: BeirScore.parse(JSON.parse(stdout)), via: 'cli' };
  const fallback = await node(['--input-type=module', '-e', EVALUATE_SCRIPT, '--', BEIR_SCORER, dir, split, ...(runFile ? [runFile] : [])]);
  return { score: BeirScore.parse(JSON.parse(fallback)), via: 'evaluate()' };
}
