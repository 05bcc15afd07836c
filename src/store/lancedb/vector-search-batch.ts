import type { Table } from '@lancedb/lancedb';
import type { VectorProbes } from './vector-index.js';

type Row = Record<string, unknown>;

/** Everything a vector search asks of the passages table besides its vector: searches alike in all of it can share a query. */
export interface VectorSearchShape {
  /** The filter, as predicate.ts built it. */
  readonly where: string;
  /** Filter the nearest passages (LanceDB's postfilter) instead of searching among the filtered ones. */
  readonly postfilter: boolean;
  readonly limit: number;
  /** The indexed rows alone (LanceDB's fastSearch): the store compares the others itself (PendingPassages). */
  readonly fast?: boolean;
}

/** Columns every vector search reads. */
const COLUMNS = ['memory_id', 'seq', 'text', '_distance'];
/** Vectors in one query at most: no larger query was measured (bench/README.md, issue #23, "One scan for the searches waiting together"). */
const MAX_VECTORS_PER_QUERY = 8;

interface Waiting {
  readonly vector: Float32Array;
  readonly resolve: (rows: Row[]) => void;
  readonly reject: (error: unknown) => void;
}

interface Group {
  readonly shape: VectorSearchShape;
  readonly waiting: Waiting[];
  /** A query of this group runs: newcomers wait for it and go together in the next. */
  running: boolean;
  /** A query is due at the end of this event-loop turn. */
  scheduled: boolean;
}

/**
 * Micro-batches the vector searches of one table: searches with the same filter and depth that wait at the
 * same moment go to LanceDB as one query of several vectors (`addQueryVector`). Below the vector index's
 * threshold every search is a brute-force pass over all passages, and one query of several vectors costs
 * LanceDB little more than a query of one; each vector still gets exactly the rows its own query would
 * return, in the same order (the query is planned per vector, tagged with `query_index`).
 *
 * A search waits only for the end of the current event-loop turn (the query embeddings of one embedder
 * batch resolve together), or, while a query of its group runs, for that query to end, as TableWriter
 * group-commits appends. One search at a time waits for nothing but the turn.
 */
export class VectorSearchBatcher {
  private readonly groups = new Map<string, Group>();
  /** Queries sent to LanceDB and the searches they answered: what the batching saved. */
  readonly counts = { queries: 0, searches: 0 };

  /** @param probes the partitions a query of the vector index probes, filtered first or not (null: LanceDB's default). */
  constructor(
    private readonly table: Table,
    private readonly probes: (prefiltered: boolean) => VectorProbes | null = () => null,
  ) {}

  /** The rows LanceDB returns for this vector and shape: nearest first, `limit` at most. */
  search(vector: Float32Array, shape: VectorSearchShape): Promise<Row[]> {
    const key = JSON.stringify([shape.where, shape.postfilter, shape.limit, shape.fast === true]);
    let group = this.groups.get(key);
    if (!group) {
      group = { shape, waiting: [], running: false, scheduled: false };
      this.groups.set(key, group);
    }
    const rows = new Promise<Row[]>((resolve, reject) => group.waiting.push({ vector, resolve, reject }));
    if (!group.running) this.schedule(key, group);
    return rows;
  }

  private schedule(key: string, group: Group): void {
    if (group.scheduled) return;
    group.scheduled = true;
    setImmediate(() => {
      group.scheduled = false;
      void this.run(key, group);
    });
  }

  private async run(key: string, group: Group): Promise<void> {
    const batch = group.waiting.splice(0, MAX_VECTORS_PER_QUERY);
    group.running = true;
    try {
      const perVector = await this.query(batch.map((item) => item.vector), group.shape);
      batch.forEach((item, index) => item.resolve(perVector[index] ?? []));
    } catch (error) {
      for (const item of batch) item.reject(error);
    } finally {
      group.running = false;
      if (group.waiting.length > 0) this.schedule(key, group);
      else this.groups.delete(key);
    }
  }

  /** One LanceDB query for all the vectors; each vector's rows, in LanceDB's order. */
  private async query(vectors: readonly Float32Array[], shape: VectorSearchShape): Promise<Row[][]> {
    const [first, ...rest] = vectors;
    if (!first) return [];
    let query = this.table.query().nearestTo(first);
    for (const vector of rest) query = query.addQueryVector(vector);
    query = query.distanceType('cosine').where(shape.where);
    if (shape.fast) query = query.fastSearch();
    const probes = this.probes(!shape.postfilter);
    // Set one at a time, LanceDB refuses a minimum above the maximum it holds or the reverse (its defaults are equal).
    if (probes !== null) {
      query = probes.minimum === probes.maximum ? query.nprobes(probes.minimum) : query.maximumNprobes(probes.maximum).minimumNprobes(probes.minimum);
    }
    const rows = (await (shape.postfilter ? query.postfilter() : query).select(COLUMNS).limit(shape.limit).toArray()) as Row[];
    this.counts.queries += 1;
    this.counts.searches += vectors.length;
    if (vectors.length === 1) return [rows];
    // Each vector's rows keep LanceDB's order (nearest first) among themselves; the vectors' parts may interleave.
    const perVector: Row[][] = vectors.map(() => []);
    for (const row of rows) perVector[Number(row['query_index'])]?.push(row);
    return perVector;
  }
}
