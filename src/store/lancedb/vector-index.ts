import * as lancedb from '@lancedb/lancedb';
import type { Table } from '@lancedb/lancedb';

/** Below this many vectors brute force is exact and fast enough (STACK.md); above it, IVF_FLAT. */
export const VECTOR_INDEX_MIN_ROWS = 50_000;
/**
 * Every optimize() that finds new passages adds a delta part to the vector index instead of folding them into
 * it, and a search pays for every part, so each compaction made every later search dearer without bound. Past
 * this many parts maintenance trains the index again as one part. A training is dear: its own CPU, the next
 * compaction rewriting every fragment the old parts kept apart, and the compactions it holds off meanwhile
 * (unindexed rows cost each search far more than a part). Under steady saves a part comes with every
 * compaction, and a few parts cost a search less than trainings that often: the cap balances the two
 * (bench/README.md, issue #23, "The vector index in a bounded number of parts").
 */
export const VECTOR_INDEX_MAX_PARTS = 24;
/**
 * Partitions an unfiltered query probes, as a share of the index's partitions: one part at LanceDB's default
 * probes found clearly fewer of the exact nearest passages than the parts it replaced (which LanceDB searches
 * nearly whole), and it is the share of the partitions probed, not their number, that keeps the recall across
 * sizes. At half, one part finds what it finds probing every partition, for less (bench/README.md, issue #23,
 * "The vector index in a bounded number of parts").
 */
export const VECTOR_PROBES_SHARE = 0.5;
/** ... but never fewer than LanceDB's own default. */
export const VECTOR_PROBES_MIN = 20;

/** The partitions an IVF index trained on this many vectors gets: LanceDB's own rule, the square root. */
export function vectorIndexPartitions(rows: number): number {
  return Math.max(1, Math.round(Math.sqrt(rows)));
}

/** Partitions a vector query probes: always `minimum`, and up to `maximum` while a filter leaves too few rows. */
export interface VectorProbes {
  readonly minimum: number;
  readonly maximum: number;
}

/**
 * The probes of a query of an index of this many partitions. A query filtered first (tags, a space, dates)
 * may probe every partition: the filter leaves few rows in each, so the nearest matching passages lie in
 * more partitions than an unfiltered query's (a share of them missed many), and a narrow filter may leave
 * fewer rows than asked in the share; the filter also makes every partition cheap to read.
 */
export function vectorProbes(partitions: number, prefiltered: boolean): VectorProbes {
  const minimum = Math.min(partitions, Math.max(VECTOR_PROBES_MIN, Math.ceil(partitions * VECTOR_PROBES_SHARE)));
  return { minimum, maximum: prefiltered ? Math.max(minimum, partitions) : minimum };
}

/** What maintenance found or did to a passages table's vector index. */
export interface VectorIndexState {
  /** For the maintenance report: 'none (brute force)', 'ivf_flat', or what was built. */
  readonly report: string;
  /**
   * The partitions the index has, as far as the store can tell: the index was trained on at most the rows the
   * table holds now, so this can be a little above the truth, which costs a few probes more, never recall.
   * Null without an index.
   */
  readonly partitions: number | null;
  /** The index's parts after maintenance (1 after a training); null without an index. */
  readonly parts: number | null;
}

export interface VectorIndexOptions {
  readonly minRows: number;
  readonly maxParts: number;
}

/** The vector index's parts and the rows of the table (indexed or not), or null when it has none. */
export async function vectorIndexStats(table: Table): Promise<{ parts: number; rows: number } | null> {
  const existing = (await table.listIndices()).find((index) => index.columns.includes('vector'));
  if (!existing) return null;
  const stats = await table.indexStats(existing.name);
  if (!stats) return null;
  return { parts: stats.numIndices ?? 1, rows: stats.numIndexedRows + stats.numUnindexedRows };
}

/**
 * IVF_FLAT once the table is large enough (IVF_PQ's quantized vectors lost most nearest passages, STACK.md), trained
 * again as one part once compactions have split it into more than `maxParts`. Training reads a version of
 * the table and commits a new index beside it: searches keep the old index until that commit, writes go on
 * (their rows are searched flat until the next compaction indexes them), and a failed training leaves the
 * old index in place. The caller holds maintenance (and its lease when daemons share the store), so no
 * compaction rewrites the fragments being indexed.
 */
export async function maintainVectorIndex(table: Table, options: VectorIndexOptions): Promise<VectorIndexState> {
  const stats = await vectorIndexStats(table);
  if (stats && stats.parts <= options.maxParts) return { report: 'ivf_flat', partitions: vectorIndexPartitions(stats.rows), parts: stats.parts };
  const rows = stats ? stats.rows : await table.countRows();
  if (!stats && rows < options.minRows) return { report: 'none (brute force)', partitions: null, parts: null };
  const partitions = vectorIndexPartitions(rows);
  await table.createIndex('vector', {
    replace: true,
    config: lancedb.Index.ivfFlat({ distanceType: 'cosine', numPartitions: partitions }),
  });
  return { report: stats ? `ivf_flat (trained again: ${stats.parts} parts)` : 'ivf_flat', partitions, parts: 1 };
}
