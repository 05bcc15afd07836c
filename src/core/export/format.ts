import { createHash } from 'node:crypto';
import { z } from 'zod';
import { AUTHOR_PATTERN, MAX_AUTHOR_CHARS } from '../author.js';
import { ENTITY_TYPES, FACT_CATEGORIES } from '../../providers/spec.js';
import { ulid } from '../ids.js';
import { entityFromDocuments, UNKNOWN_TALLY } from '../knowledge/entity-tally.js';
import { matchKeys } from '../knowledge/names.js';
import type { EdgeRecord, EntityContribution, EntityContributions, EntityRecord, ExtractionStatusRecord, FactRecord } from '../knowledge/types.js';
import type { ChunkInput, MemoryRecord, WatchRecord } from '../types.js';

/**
 * The export format (`mem-export`, version 1): JSON lines, one record each. A header first, then memories,
 * entities, facts, edges, spaces and watches, each kind in id order, then an end line with the counts.
 * Keys are always written in the same order and times as ISO 8601 (UTC, milliseconds), so two exports of
 * the same data are byte-identical apart from VOLATILE_FIELDS. Tenant ids never appear: a file is imported
 * into whichever account imports it.
 */
export const EXPORT_FORMAT = 'mem-export';
export const EXPORT_VERSION = 1;

/** What differs between two exports of the same data (the README lists them). */
export const VOLATILE_FIELDS = ['header.exportedAt'] as const;

export type ExportLineType = 'header' | 'memory' | 'entity' | 'fact' | 'edge' | 'space' | 'watch' | 'end';

const iso = (ms: number): string => new Date(ms).toISOString();
const isoOrNull = (ms: number | null): string | null => (ms === null ? null : iso(ms));

export interface ExportCounts {
  memories: number;
  entities: number;
  facts: number;
  edges: number;
  spaces: number;
  watches: number;
}

export function headerLine(input: {
  exportedAt: number;
  embedding: { modelId: string; dimension: number };
  spaceId: string | undefined;
  since: number | undefined;
  withVectors: boolean;
}) {
  return {
    type: 'header' as const,
    format: EXPORT_FORMAT,
    version: EXPORT_VERSION,
    exportedAt: iso(input.exportedAt),
    embedding: { modelId: input.embedding.modelId, dimension: input.embedding.dimension },
    filter: { spaceId: input.spaceId ?? null, since: input.since === undefined ? null : iso(input.since) },
    withVectors: input.withVectors,
  };
}

export function extractionLine(status: ExtractionStatusRecord) {
  return {
    status: status.status,
    model: status.model,
    attempts: status.attempts,
    entities: status.entities,
    facts: status.facts,
    error: status.error,
    updatedAt: iso(status.updatedAt),
  };
}

export function memoryLine(memory: MemoryRecord, status: ExtractionStatusRecord | null, chunks?: readonly ChunkInput[]) {
  return {
    type: 'memory' as const,
    id: memory.id,
    title: memory.title,
    content: memory.content,
    description: memory.description,
    tags: [...memory.tags],
    metadata: memory.metadata,
    ...(memory.context ? { context: memory.context } : {}),
    ...(memory.author ? { author: memory.author } : {}),
    spaceId: memory.spaceId,
    createdAt: iso(memory.createdAt),
    updatedAt: isoOrNull(memory.updatedAt),
    contentHash: memory.contentHash,
    turbo: memory.turbo,
    extraction: status ? extractionLine(status) : null,
    ...(chunks ? { vectors: chunks.map((chunk) => ({ seq: chunk.seq, text: chunk.text, vector: Array.from(chunk.vector) })) } : {}),
  };
}

export function entityLine(entity: EntityRecord, documents: EntityContributions) {
  return {
    type: 'entity' as const,
    id: entity.id,
    name: entity.name,
    entityType: entity.type,
    aliases: [...entity.aliases],
    properties: entity.properties,
    mentions: entity.mentions,
    firstSeen: iso(entity.firstSeen),
    lastSeen: iso(entity.lastSeen),
    memoryIds: [...entity.relatedDocuments],
    // By memory id: the store returns contributions in no set order, and a line is compared as text.
    contributions: Object.fromEntries(
      Object.entries(documents)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([memoryId, contribution]) => [
          memoryId,
          { mentions: contribution.mentions, seenAt: iso(contribution.seenAt), names: [...contribution.names], properties: contribution.properties },
        ]),
    ),
  };
}

export function factLine(fact: FactRecord) {
  return {
    type: 'fact' as const,
    id: fact.id,
    subjectId: fact.subjectId,
    subject: fact.subject,
    predicate: fact.predicate,
    object: fact.object,
    objectId: fact.objectId,
    category: fact.category,
    statement: fact.statement,
    confidence: fact.confidence,
    source: { memoryId: fact.source.documentId, excerpt: fact.source.excerpt },
    extractedAt: iso(fact.extractedAt),
    validFrom: isoOrNull(fact.validFrom),
    validTo: isoOrNull(fact.validTo),
    supersededBy: fact.supersededBy,
    memoryIds: [...new Set(fact.supports.map((support) => support.memoryId))],
    supports: fact.supports.map((support) => ({
      memoryId: support.memoryId,
      statement: support.statement,
      excerpt: support.excerpt,
      confidence: support.confidence,
      extractedAt: iso(support.extractedAt),
      validFrom: isoOrNull(support.validFrom),
      statedAt: iso(support.statedAt),
    })),
  };
}

export function edgeLine(edge: EdgeRecord) {
  return {
    type: 'edge' as const,
    id: edge.id,
    sourceId: edge.sourceId,
    targetId: edge.targetId,
    relationship: edge.relationship,
    strength: edge.strength,
    memoryIds: edge.supports.map((support) => support.memoryId),
    supports: edge.supports.map((support) => ({ memoryId: support.memoryId, confidence: support.confidence })),
  };
}

export function spaceLine(id: string, memories: number) {
  return { type: 'space' as const, id, memories };
}

export function watchLine(watch: WatchRecord) {
  return {
    type: 'watch' as const,
    id: watch.id,
    path: watch.path,
    glob: watch.glob,
    tags: [...watch.tags],
    spaceId: watch.spaceId,
    keepDeleted: watch.keepDeleted,
    createdAt: iso(watch.createdAt),
    initialJobId: watch.initialJobId,
  };
}

export function endLine(counts: ExportCounts) {
  return { type: 'end' as const, counts: { ...counts } };
}

// ---- reading lines back (import) ----------------------------------------------------------------------

const ULID = '[0-9A-HJKMNP-TV-Z]{26}';
const idOf = (prefix: string) => z.string().regex(new RegExp(`^${prefix}_${ULID}$`), `must be ${prefix}_ followed by a 26-character ULID`);
const time = z
  .union([z.iso.datetime({ offset: true }), z.iso.date()], { error: 'must be an ISO 8601 date or date-time' })
  // A date alone is midnight UTC (as Date.parse reads it).
  .transform((value) => Date.parse(value));
const scalar = z.union([z.string(), z.number(), z.boolean()]);
const properties = z.record(z.string(), scalar);

const extractionInput = z.object({
  status: z.enum(['pending', 'processing', 'completed', 'failed']),
  model: z.string(),
  attempts: z.number().int().min(0),
  entities: z.number().int().min(0),
  facts: z.number().int().min(0),
  error: z.string().nullable(),
  updatedAt: time,
});

export const memoryInput = z.object({
  type: z.literal('memory'),
  id: idOf('mem').optional().describe('Without one, the id is derived from createdAt, spaceId and the content, so the same item imported again is found.'),
  title: z.string().max(500).optional(),
  content: z.string().refine((value) => value.trim().length > 0, 'content must not be empty'),
  description: z.string().max(5000).optional(),
  context: z.string().max(5000).optional(),
  author: z.string().max(MAX_AUTHOR_CHARS).regex(AUTHOR_PATTERN, 'author must be one line').optional(),
  tags: z.array(z.string().min(1).max(100)).max(100).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  spaceId: z.string().max(200).optional(),
  createdAt: time.optional(),
  updatedAt: time.nullable().optional(),
  turbo: z.boolean().optional(),
  /** Absent: the memory is extracted as a save would (standard memories only). null: no extraction status. */
  extraction: extractionInput.nullable().optional(),
  vectors: z.array(z.object({ seq: z.number().int().min(0), text: z.string(), vector: z.array(z.number()) })).optional(),
});
export type MemoryInput = z.infer<typeof memoryInput>;

const contribution = z.object({ mentions: z.number().min(0), seenAt: time, names: z.array(z.string()), properties: properties.default({}) });

export const entityInput = z.object({
  type: z.literal('entity'),
  id: idOf('ent'),
  name: z.string().min(1),
  entityType: z.enum(ENTITY_TYPES),
  aliases: z.array(z.string()).default([]),
  properties: properties.default({}),
  mentions: z.number().min(0),
  firstSeen: time,
  lastSeen: time,
  memoryIds: z.array(idOf('mem')),
  contributions: z.record(idOf('mem'), contribution),
});
export type EntityInput = z.infer<typeof entityInput>;

export const factInput = z.object({
  type: z.literal('fact'),
  id: idOf('fact'),
  subjectId: idOf('ent'),
  subject: z.string(),
  predicate: z.string().min(1),
  object: z.string(),
  objectId: idOf('ent').nullable(),
  category: z.enum(FACT_CATEGORIES),
  statement: z.string(),
  confidence: z.number().min(0).max(1),
  source: z.object({ memoryId: idOf('mem'), excerpt: z.string() }),
  extractedAt: time,
  validFrom: time.nullable(),
  validTo: time.nullable(),
  supersededBy: idOf('fact').nullable(),
  supports: z
    .array(
      z.object({
        memoryId: idOf('mem'),
        statement: z.string(),
        excerpt: z.string(),
        confidence: z.number().min(0).max(1),
        extractedAt: time,
        validFrom: time.nullable(),
        statedAt: time,
      }),
    )
    .min(1),
});
export type FactInput = z.infer<typeof factInput>;

export const edgeInput = z.object({
  type: z.literal('edge'),
  id: idOf('edge'),
  sourceId: idOf('ent'),
  targetId: idOf('ent'),
  relationship: z.string().min(1),
  strength: z.number().min(0).max(1),
  supports: z.array(z.object({ memoryId: idOf('mem'), confidence: z.number().min(0).max(1) })).min(1),
});
export type EdgeInput = z.infer<typeof edgeInput>;

export const watchInput = z.object({
  type: z.literal('watch'),
  id: idOf('wch'),
  path: z.string().min(1).max(4096).refine((value) => value.startsWith('/') || /^[A-Za-z]:[\\/]/.test(value), 'path must be absolute'),
  glob: z.string().min(1).max(500),
  tags: z.array(z.string().min(1).max(100)).max(100).default([]),
  spaceId: z.string().max(200).default(''),
  keepDeleted: z.boolean().default(false),
  createdAt: time,
  initialJobId: z.string().max(200).nullable().default(null),
});
export type WatchInput = z.infer<typeof watchInput>;

export const spaceInput = z.object({ type: z.literal('space'), id: z.string().max(200), memories: z.number().optional() });

export const headerInput = z.object({
  type: z.literal('header'),
  format: z.literal(EXPORT_FORMAT, { error: `format must be "${EXPORT_FORMAT}"` }),
  version: z.number().int().min(1),
  embedding: z.object({ modelId: z.string(), dimension: z.number().int().min(1) }).optional(),
});
export type HeaderInput = z.infer<typeof headerInput>;

export const endInput = z.object({ type: z.literal('end') });

export const LINE_SCHEMAS = {
  header: headerInput,
  memory: memoryInput,
  entity: entityInput,
  fact: factInput,
  edge: edgeInput,
  space: spaceInput,
  watch: watchInput,
  end: endInput,
} as const;

export function toStatus(memoryId: string, line: z.infer<typeof extractionInput>): ExtractionStatusRecord {
  return {
    memoryId,
    status: line.status,
    error: line.error,
    model: line.model,
    attempts: line.attempts,
    updatedAt: line.updatedAt,
    entities: line.entities,
    facts: line.facts,
  };
}

/** The entity as the line gives it, with the contributions it is derived from. */
export function toEntity(line: EntityInput): { entity: EntityRecord; documents: EntityContributions } {
  const documents: Record<string, EntityContribution> = {};
  for (const [memoryId, entry] of Object.entries(line.contributions)) {
    documents[memoryId] = { mentions: entry.mentions, seenAt: entry.seenAt, names: entry.names, properties: entry.properties };
  }
  const entity: EntityRecord = {
    id: line.id,
    name: line.name,
    type: line.entityType,
    aliases: line.aliases,
    properties: line.properties,
    mentions: line.mentions,
    firstSeen: line.firstSeen,
    lastSeen: line.lastSeen,
    relatedDocuments: line.memoryIds,
    // Lookup keys are derived from the names, as the knowledge service derives them (deriveEntity).
    matchKeys: matchKeys([line.name, ...line.aliases], line.entityType),
    // The line's fields are kept as written; the next change derives them from the contributions.
    tally: entityFromDocuments({ id: line.id, type: line.entityType }, documents)?.tally ?? UNKNOWN_TALLY,
  };
  return { entity, documents };
}

export function toFact(line: FactInput): FactRecord {
  return {
    id: line.id,
    subjectId: line.subjectId,
    subject: line.subject,
    predicate: line.predicate,
    object: line.object,
    objectId: line.objectId,
    category: line.category,
    statement: line.statement,
    confidence: line.confidence,
    source: { documentId: line.source.memoryId, excerpt: line.source.excerpt },
    extractedAt: line.extractedAt,
    validFrom: line.validFrom,
    validTo: line.validTo,
    supersededBy: line.supersededBy,
    supports: line.supports,
  };
}

export function toEdge(line: EdgeInput): EdgeRecord {
  return { id: line.id, sourceId: line.sourceId, targetId: line.targetId, relationship: line.relationship, strength: line.strength, supports: line.supports };
}

export function toWatch(tenant: string, line: WatchInput): WatchRecord {
  return {
    id: line.id,
    accountId: tenant,
    path: line.path,
    glob: line.glob,
    tags: line.tags,
    spaceId: line.spaceId,
    keepDeleted: line.keepDeleted,
    createdAt: line.createdAt,
    initialJobId: line.initialJobId,
  };
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * The id of a memory line that has none: the ULID time of its createdAt, then 16 characters of a hash of
 * space, time and content. The same item imported again (a re-run importer) gets the same id, so it is
 * found instead of stored twice.
 */
export function derivedMemoryId(content: string, createdAt: number, spaceId: string): string {
  const time = ulid(Math.max(0, Math.floor(createdAt))).slice(0, 10);
  const digest = createHash('sha256').update(`${spaceId}\n${createdAt}\n${content}`, 'utf8').digest();
  let random = '';
  for (let i = 0; i < 16; i++) random += CROCKFORD[(digest[i] ?? 0) % 32];
  return `mem_${time}${random}`;
}

/** One JSON line (with its newline). */
export function jsonLine(value: unknown): string {
  return `${JSON.stringify(value)}\n`;
}

/** NDJSON text -> records: blank lines skipped; a line that is not JSON becomes an error at its position. */
export function parseNdjson(text: string): ({ value: unknown } | { error: string })[] {
  return text
    .split(/\r?\n/)
    .filter((line) => line.trim().length > 0)
    .map((line, index) => {
      try {
        return { value: JSON.parse(line) as unknown };
      } catch (error) {
        return { error: `record ${index} is not JSON: ${(error as Error).message}` };
      }
    });
}
