import { deriveEdge, deriveEntity, deriveFact } from '../knowledge/derive.js';
import type { EdgeRecord, EntityContributions, EntityRecord, FactRecord } from '../knowledge/types.js';
import type { Storage } from '../ports.js';
import {
  edgeLine,
  endLine,
  entityLine,
  factLine,
  headerLine,
  jsonLine,
  memoryLine,
  spaceLine,
  watchLine,
  type ExportCounts,
} from './format.js';

/** Records read per store query: an export never holds more than a page of memories at once. */
const PAGE_SIZE = 200;

export interface ExportOptions {
  readonly spaceId?: string | undefined;
  /** Memories created or updated at or after this instant. */
  readonly since?: number | undefined;
  /** Each memory's passages and vectors, for an import that need not re-embed. */
  readonly withVectors: boolean;
}

export interface ExportServiceDeps {
  readonly storage: Storage;
  readonly now?: () => number;
}

/**
 * Streams one tenant's data in the export format (format.ts), paging through the store. With a space or
 * a date filter, the knowledge records keep only what the exported memories contribute (re-derived as the
 * knowledge service derives them), so an import of a partial export never points at memories it lacks.
 */
export class ExportService {
  private readonly now: () => number;

  constructor(private readonly deps: ExportServiceDeps) {
    this.now = deps.now ?? Date.now;
  }

  async *lines(tenant: string, options: ExportOptions): AsyncGenerator<string> {
    const { storage } = this.deps;
    const filtered = options.spaceId !== undefined || options.since !== undefined;
    const counts: ExportCounts = { memories: 0, entities: 0, facts: 0, edges: 0, spaces: 0, watches: 0 };
    yield jsonLine(
      headerLine({
        exportedAt: this.now(),
        embedding: storage.vectorSpace,
        spaceId: options.spaceId,
        since: options.since,
        withVectors: options.withVectors,
      }),
    );

    const memories = storage.memories(tenant);
    const knowledge = storage.knowledge(tenant);
    // With a filter, the ids written (knowledge is cut down to them); without one, every memory is written.
    const written = filtered ? new Set<string>() : null;
    const spaces = new Map<string, number>();
    let after: string | null = null;
    for (;;) {
      const page = await memories.page({ after, limit: PAGE_SIZE, spaceId: options.spaceId, changedSince: options.since });
      if (page.length === 0) break;
      const ids = page.map((memory) => memory.id);
      const [statuses, chunks] = await Promise.all([knowledge.statusesOf(ids), options.withVectors ? memories.chunksOf(ids) : null]);
      const statusOf = new Map(statuses.map((status) => [status.memoryId, status]));
      let text = '';
      for (const memory of page) {
        text += jsonLine(memoryLine(memory, statusOf.get(memory.id) ?? null, chunks ? (chunks.get(memory.id) ?? []) : undefined));
        written?.add(memory.id);
        if (memory.spaceId) spaces.set(memory.spaceId, (spaces.get(memory.spaceId) ?? 0) + 1);
      }
      counts.memories += page.length;
      yield text;
      after = ids[ids.length - 1] ?? null;
      if (page.length < PAGE_SIZE) break;
    }

    const entityIds = filtered ? new Set<string>() : null;
    for await (const entities of pages((from) => knowledge.entityPage(from, PAGE_SIZE))) {
      let text = '';
      const contributions = await knowledge.contributionsOf(entities.map((entity) => entity.id));
      for (const stored of entities) {
        const kept = keepEntity(stored, contributions.get(stored.id) ?? {}, written);
        if (!kept) continue;
        const { entity, documents } = kept;
        entityIds?.add(entity.id);
        text += jsonLine(entityLine(entity, documents));
        counts.entities++;
      }
      if (text) yield text;
    }
    const hasEntity = (id: string | null) => id === null || !entityIds || entityIds.has(id);
    for await (const facts of pages((from) => knowledge.factPage(from, PAGE_SIZE))) {
      let text = '';
      for (const stored of facts) {
        // A filtered export may name a superseding fact it leaves out: validity stays as it was.
        const fact = written ? keepFact(stored, written) : stored;
        if (!fact || !hasEntity(fact.subjectId) || !hasEntity(fact.objectId)) continue;
        text += jsonLine(factLine(fact));
        counts.facts++;
      }
      if (text) yield text;
    }
    for await (const edges of pages((from) => knowledge.edgePage(from, PAGE_SIZE))) {
      let text = '';
      for (const stored of edges) {
        const edge = written ? keepEdge(stored, written) : stored;
        if (!edge || !hasEntity(edge.sourceId) || !hasEntity(edge.targetId)) continue;
        text += jsonLine(edgeLine(edge));
        counts.edges++;
      }
      if (text) yield text;
    }

    let text = '';
    for (const id of [...spaces.keys()].sort()) {
      text += jsonLine(spaceLine(id, spaces.get(id) ?? 0));
      counts.spaces++;
    }
    // Watches are settings, not data: a date filter keeps them all, a space filter those of the space.
    const watches = (await storage.watches.list(tenant))
      .filter((watch) => options.spaceId === undefined || watch.spaceId === options.spaceId)
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    for (const watch of watches) {
      text += jsonLine(watchLine(watch));
      counts.watches++;
    }
    yield text + jsonLine(endLine(counts));
  }
}

/** Keyset pages of one knowledge table. */
async function* pages<T extends { id: string }>(read: (after: string | null) => Promise<T[]>): AsyncGenerator<T[]> {
  let after: string | null = null;
  for (;;) {
    const page = await read(after);
    if (page.length === 0) return;
    yield page;
    if (page.length < PAGE_SIZE) return;
    after = page[page.length - 1]?.id ?? null;
  }
}

/** The entity as the memories written (null: all of them) make it, with their contributions. */
function keepEntity(
  entity: EntityRecord,
  documents: EntityContributions,
  memories: ReadonlySet<string> | null,
): { entity: EntityRecord; documents: EntityContributions } | null {
  const entries = Object.entries(documents);
  if (!memories || entries.every(([memoryId]) => memories.has(memoryId))) return entries.length > 0 || !memories ? { entity, documents } : null;
  const kept = Object.fromEntries(entries.filter(([memoryId]) => memories.has(memoryId)));
  const derived = deriveEntity(entity, kept);
  return derived ? { entity: derived, documents: kept } : null;
}

function keepFact(fact: FactRecord, memories: ReadonlySet<string>): FactRecord | null {
  if (fact.supports.every((support) => memories.has(support.memoryId))) return fact;
  return deriveFact({ ...fact, supports: fact.supports.filter((support) => memories.has(support.memoryId)) });
}

function keepEdge(edge: EdgeRecord, memories: ReadonlySet<string>): EdgeRecord | null {
  if (edge.supports.every((support) => memories.has(support.memoryId))) return edge;
  return deriveEdge({ ...edge, supports: edge.supports.filter((support) => memories.has(support.memoryId)) });
}
