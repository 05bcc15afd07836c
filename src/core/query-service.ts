import type { MemoryService } from './memory-service.js';
import type { MemoryStore, Storage } from './ports.js';
import { aggregate, aggregateFields, wantsAggregations, type AggregateRequest, type Aggregations } from './query/aggregate.js';
import { compareBy, matches, type Ranked } from './query/evaluate.js';
import { fieldColumn, parseFields, parseSort, type MemoryField, type MemoryView, type SortKey } from './query/fields.js';
import { filterFields, isTranslatable, parseFilter, translatablePart, type FilterNode } from './query/filter.js';
import { Zone } from './query/time.js';
import type { MemoryFilter } from './types.js';

/**
 * Relevance (a query with text) ranks this many memories: the same hybrid scoring as search (best passage
 * of each memory, cosine plus BM25, calibrated to 0-1) over the top passages by vector and by keyword, at
 * or above `threshold`. Filters, sorts, totals and aggregations then apply to those candidates exactly.
 */
export const RELEVANCE_CANDIDATES = 1000;
/** Same default as search: calibrated so that unrelated memories (~0.2) stay out. */
export const DEFAULT_RELEVANCE_THRESHOLD = 0.5;

export interface QueryInput {
  /** Text: results are ranked by relevance to it and carry `score`. */
  readonly query?: string | undefined;
  readonly filters?: Readonly<Record<string, unknown>> | undefined;
  readonly sort?: Readonly<Record<string, 1 | -1>> | undefined;
  readonly limit: number;
  readonly offset: number;
  readonly fields?: readonly string[] | undefined;
  readonly aggregate?: AggregateRequest | undefined;
  /** Minimum relevance score with `query` (0-1). */
  readonly threshold?: number | undefined;
}

export interface QueryOptions {
  /** IANA zone of the account's calendar: date-only filter values and histogram buckets (default UTC). */
  readonly timezone?: string | undefined;
}

export interface QueryHit {
  readonly memory: MemoryView;
  /** Relevance 0-1; only with query text. */
  readonly score?: number | undefined;
}

/** How a query was answered: all inside LanceDB, LanceDB prefilter plus the evaluator, or relevance candidates. */
export type QueryStrategy = 'lancedb' | 'scan' | 'relevance';

export interface QueryOutput {
  readonly hits: QueryHit[];
  /** Every match, not only the page. */
  readonly total: number;
  readonly aggregations?: Aggregations | undefined;
  readonly strategy: QueryStrategy;
}

export interface QueryServiceDeps {
  readonly storage: Storage;
  readonly memories: MemoryService;
}

interface Plan {
  readonly filter: FilterNode | null;
  readonly sort: SortKey[];
  readonly fields: MemoryField[];
  readonly page: { readonly limit: number; readonly offset: number };
  readonly aggregate: AggregateRequest | undefined;
  readonly zone: Zone;
}

function project(memory: MemoryView, fields: readonly MemoryField[]): MemoryView {
  const view: Record<string, unknown> = { id: memory.id };
  for (const field of fields) view[field] = memory[field];
  return view as MemoryView;
}

/**
 * One page of `items` in `compare` order. A page near the start (the usual case) is selected in one pass
 * that keeps the best offset+limit items, instead of sorting every match. `compare` is a total order (ties
 * end at the id), so both ways give the same page.
 */
export function pageOf<T>(items: readonly T[], page: { readonly limit: number; readonly offset: number }, compare: (a: T, b: T) => number): T[] {
  const keep = page.offset + page.limit;
  if (keep > 1000 || keep * 8 >= items.length) return [...items].sort(compare).slice(page.offset, keep);
  const best: T[] = [];
  for (const item of items) {
    if (best.length === keep && compare(item, best[keep - 1] as T) >= 0) continue;
    let low = 0;
    let high = best.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (compare(best[middle] as T, item) <= 0) low = middle + 1;
      else high = middle;
    }
    best.splice(low, 0, item);
    if (best.length > keep) best.pop();
  }
  return best.slice(page.offset);
}

/** The aggregations a plan asks for, over every match; nothing when it asks for none. */
function aggregationsOf(plan: Plan, memories: () => readonly MemoryView[]): { aggregations?: Aggregations } {
  return plan.aggregate && wantsAggregations(plan.aggregate) ? { aggregations: aggregate(memories(), plan.aggregate, plan.zone) } : {};
}

function sortFields(sort: readonly SortKey[]): MemoryField[] {
  return sort.flatMap((key) => (key.field.kind === 'score' ? [] : [fieldColumn(key.field)]));
}

/**
 * The search pre-filter for relevance candidates, taken from top-level AND conditions that the search
 * filter can express. It only has to be implied by the filter (a superset): the filter itself is then
 * evaluated on every candidate.
 */
function searchFilter(filter: FilterNode | null): MemoryFilter {
  const conditions = filter === null ? [] : filter.type === 'and' ? filter.children : [filter];
  let spaceId: string | undefined;
  let tags: readonly string[] | undefined;
  let after = Number.NEGATIVE_INFINITY;
  let before = Number.POSITIVE_INFINITY;
  for (const condition of conditions) {
    if (condition.type === 'text' && condition.field === 'spaceId' && condition.op === 'in' && condition.values.length === 1) {
      spaceId ??= condition.values[0];
    } else if (condition.type === 'tags' && condition.op === 'in' && condition.values.length > 0) {
      tags ??= condition.values;
    } else if (condition.type === 'date' && condition.field === 'createdAt') {
      const range = condition.values[0];
      if (!range || (condition.op === 'in' && condition.values.length !== 1) || condition.op === 'nin') continue;
      if (condition.op === 'in' || condition.op === 'gt' || condition.op === 'gte') {
        after = Math.max(after, condition.op === 'gt' ? range.end : range.start);
      }
      if (condition.op === 'in' || condition.op === 'lt' || condition.op === 'lte') {
        before = Math.min(before, condition.op === 'lt' ? range.start : range.end);
      }
    }
  }
  return {
    ...(spaceId !== undefined ? { spaceId } : {}),
    ...(tags ? { tags } : {}),
    ...(Number.isFinite(after) ? { after } : {}),
    ...(Number.isFinite(before) ? { before } : {}),
  };
}

/**
 * Structured queries over one account's memories: the filter language, sorts, field projections and
 * aggregations of POST /v1/query. Filters on built-in fields run inside LanceDB; metadata paths (inside the
 * metadata JSON) are evaluated here on the rows LanceDB's part of the filter leaves, so results, totals and
 * pages are exact either way.
 */
export class QueryService {
  constructor(private readonly deps: QueryServiceDeps) {}

  async run(accountId: string, input: QueryInput, options: QueryOptions = {}): Promise<QueryOutput> {
    const hasQuery = input.query !== undefined && input.query.trim() !== '';
    const zone = Zone.of(options.timezone ?? 'UTC');
    const plan: Plan = {
      filter: parseFilter(input.filters, { zone }),
      sort: parseSort(input.sort, hasQuery),
      fields: parseFields(input.fields),
      page: { limit: input.limit, offset: input.offset },
      aggregate: input.aggregate,
      zone,
    };
    const store = this.deps.storage.memories(accountId);
    if (hasQuery) return this.byRelevance(accountId, input.query ?? '', input.threshold ?? DEFAULT_RELEVANCE_THRESHOLD, plan);
    const builtInSort = plan.sort.every((key) => key.field.kind !== 'metadata');
    if (isTranslatable(plan.filter) && builtInSort) return this.inLance(store, plan);
    return this.byScan(store, plan);
  }

  /** Everything inside LanceDB: count, sorted page and (for aggregations) the aggregated columns. */
  private async inLance(store: MemoryStore, plan: Plan): Promise<QueryOutput> {
    const [page, all] = await Promise.all([
      store.select({ where: plan.filter, fields: plan.fields, orderBy: plan.sort, page: plan.page }),
      wantsAggregations(plan.aggregate)
        ? store.select({ where: plan.filter, fields: aggregateFields(plan.aggregate) })
        : Promise.resolve(null),
    ]);
    return {
      hits: page.rows.map((memory) => ({ memory })),
      total: page.total,
      ...(all ? aggregationsOf(plan, () => all.rows) : {}),
      strategy: 'lancedb',
    };
  }

  /**
   * Metadata in the filter or the sort: LanceDB applies the translatable top-level conditions and reads the
   * fields the rest needs; the evaluator filters, sorts and pages exactly; the page's fields are read last.
   */
  private async byScan(store: MemoryStore, plan: Plan): Promise<QueryOutput> {
    const prefilter = translatablePart(plan.filter);
    const needed = new Set<MemoryField>(['id', ...filterFields(plan.filter), ...sortFields(plan.sort), ...aggregateFields(plan.aggregate)]);
    const filter = plan.filter;
    const { rows } = await store.select({ where: prefilter, fields: [...needed], narrow: filter });
    const matched: Ranked[] = [];
    for (const memory of rows) if (filter === null || filter === prefilter || matches(filter, memory)) matched.push({ memory });
    const page = pageOf(matched, plan.page, compareBy(plan.sort));
    const pageIds = page.map((entry) => entry.memory.id);
    let pageRows: MemoryView[];
    if (plan.fields.every((field) => needed.has(field))) {
      pageRows = page.map((entry) => entry.memory);
    } else {
      const fetched = await store.select({
        where: { type: 'text', field: 'id', op: 'in', values: pageIds },
        fields: plan.fields,
      });
      const byId = new Map(fetched.rows.map((memory) => [memory.id, memory]));
      // A memory deleted since the first read drops out of the page.
      pageRows = pageIds.flatMap((id) => byId.get(id) ?? []);
    }
    return {
      hits: pageRows.map((memory) => ({ memory: project(memory, plan.fields) })),
      total: matched.length,
      ...aggregationsOf(plan, () => matched.map((entry) => entry.memory)),
      strategy: 'scan',
    };
  }

  /** Query text: the search's ranked candidates (see RELEVANCE_CANDIDATES), then filter, sort, page exactly. */
  private async byRelevance(accountId: string, query: string, threshold: number, plan: Plan): Promise<QueryOutput> {
    const { hits } = await this.deps.memories.search(accountId, {
      query,
      limit: RELEVANCE_CANDIDATES,
      offset: 0,
      threshold,
      hybrid: true,
      filter: searchFilter(plan.filter),
    });
    const filter = plan.filter;
    const matched: Ranked[] = hits
      .filter((hit) => filter === null || matches(filter, hit.memory))
      .map((hit) => ({ memory: hit.memory, score: hit.score }));
    return {
      hits: pageOf(matched, plan.page, compareBy(plan.sort)).map((entry) => ({
        memory: project(entry.memory, plan.fields),
        score: entry.score,
      })),
      total: matched.length,
      ...aggregationsOf(plan, () => matched.map((entry) => entry.memory)),
      strategy: 'relevance',
    };
  }
}
