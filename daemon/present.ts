import type { z } from 'zod';
import type { AskResponse, Entity, Fact, Memory, QueryResult, SaveAsyncResponse, SaveSyncResponse, Watch } from '../src/api/contract.js';
import type { AskResult } from '../src/core/answers/ask-service.js';
import type { EntityRecord, FactRecord } from '../src/core/knowledge/types.js';
import type { WatchView } from '../src/core/watch/watch-service.js';
import type { SaveOutcome } from '../src/core/ingest/document-saves.js';
import type { ApiKey, Profile as ProfileDto, UsageResponse, User } from '../src/api/contract.js';
import type { Profile, UsageReport } from '../src/core/accounts/account-service.js';
import { redactKey } from '../src/core/auth-service.js';
import type { QueryHit } from '../src/core/query-service.js';
import type { Account, ApiKeyRecord, JobRecord, MemoryRecord, PendingSaveRecord } from '../src/core/types.js';

/** Domain records -> API shapes (ISO timestamps, spec field names). */
export const iso = (ms: number): string => new Date(ms).toISOString();
const isoOrNull = (ms: number | null): string | null => (ms === null ? null : iso(ms));

export function presentMemory(memory: MemoryRecord): Memory {
  return {
    id: memory.id,
    title: memory.title,
    content: memory.content,
    description: memory.description,
    tags: [...memory.tags],
    metadata: memory.metadata,
    spaceId: memory.spaceId,
    ...(memory.context ? { context: memory.context } : {}),
    ...(memory.author ? { author: memory.author } : {}),
    createdAt: iso(memory.createdAt),
    ...(memory.updatedAt !== null ? { updatedAt: iso(memory.updatedAt) } : {}),
  };
}

/** A query result: only the fields the query asked for (id always), score with query text. */
export function presentQueryHit({ memory, score }: QueryHit): QueryResult {
  return {
    id: memory.id,
    ...(memory.title !== undefined ? { title: memory.title } : {}),
    ...(memory.content !== undefined ? { content: memory.content } : {}),
    ...(memory.description !== undefined ? { description: memory.description } : {}),
    ...(memory.author ? { author: memory.author } : {}),
    ...(memory.tags !== undefined ? { tags: [...memory.tags] } : {}),
    ...(memory.metadata !== undefined ? { metadata: memory.metadata } : {}),
    ...(memory.spaceId !== undefined ? { spaceId: memory.spaceId } : {}),
    ...(memory.createdAt !== undefined ? { createdAt: iso(memory.createdAt) } : {}),
    ...(memory.updatedAt !== undefined && memory.updatedAt !== null ? { updatedAt: iso(memory.updatedAt) } : {}),
    ...(score !== undefined ? { score } : {}),
  };
}

/** The answer to a save: the memory it made or found (201 created, 200 updated or unchanged). */
export function presentSaved(memory: MemoryRecord, outcome: SaveOutcome): z.infer<typeof SaveSyncResponse> {
  return {
    success: true,
    message: outcome === 'created' ? 'Memory saved' : outcome === 'updated' ? 'Memory updated: the source changed' : 'Already saved: unchanged',
    documentId: memory.id,
    data: { id: memory.id, title: memory.title, contentPreview: preview(memory.content), tags: [...memory.tags], createdAt: iso(memory.createdAt) },
  };
}

/** The answer to an async save: where to poll. */
export function presentPendingSave(pending: PendingSaveRecord): z.infer<typeof SaveAsyncResponse> {
  return {
    success: true,
    message: 'Save accepted; poll statusUrl for the result.',
    pendingId: pending.id,
    statusUrl: `/v1/save/status/${pending.id}`,
  };
}

export function preview(content: string, length = 200): string {
  const flat = content.replace(/\s+/g, ' ').trim();
  return flat.length <= length ? flat : `${flat.slice(0, length - 3).trimEnd()}...`;
}

export function presentKey(key: ApiKeyRecord, value?: string): ApiKey {
  return {
    id: key.id,
    name: key.name,
    type: key.type,
    key: value ?? redactKey(key),
    createdAt: iso(key.createdAt),
    lastUsedAt: isoOrNull(key.lastUsedAt),
    expiresAt: isoOrNull(key.expiresAt),
    rateLimitPerHour: key.rateLimitPerHour,
    monthlyLimit: key.monthlyLimit,
    readOnly: key.readOnly,
  };
}

export function presentJob(job: JobRecord) {
  const done = job.completed + job.failed;
  return {
    jobId: job.id,
    kind: job.kind,
    status: job.status,
    progress: {
      total: job.total,
      completed: job.completed,
      failed: job.failed,
      percentage: job.total === 0 ? 100 : Math.round((done / job.total) * 1000) / 10,
    },
    startedAt: isoOrNull(job.startedAt),
    completedAt: isoOrNull(job.finishedAt),
    error: job.error,
  };
}

/** The answer to an accepted ingest job: where to follow it. */
export function presentIngestJob(job: JobRecord, itemCount: number) {
  return {
    success: true as const,
    message: `Ingest job accepted with ${itemCount} items.`,
    jobId: job.id,
    itemCount,
    statusUrl: `/v1/ingest/status/${job.id}`,
  };
}

/** ISO date or datetime -> epoch ms. A date-only `before` means the end of that day (inclusive). */
export function parseBound(value: string | undefined, edge: 'start' | 'end'): number | undefined {
  if (value === undefined) return undefined;
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) {
    const start = Date.parse(`${value}T00:00:00.000Z`);
    return edge === 'start' ? start : start + 86_400_000 - 1;
  }
  return Date.parse(value);
}

/** Unlimited plan figures are null inside and -1 in the API (the spec types them as numbers). */
const limit = (value: number | null): number => value ?? -1;

export function presentUser(account: Account): User {
  return {
    id: account.id,
    email: account.email,
    name: account.name,
    company: account.company,
    tier: account.tier,
    createdAt: iso(account.createdAt),
    isOwner: account.isOwner,
  };
}

export function presentProfile(profile: Profile): ProfileDto {
  const { account, limits, currentUsage } = profile;
  return {
    id: account.id,
    email: account.email,
    name: account.name,
    company: account.company,
    tier: account.tier,
    createdAt: iso(account.createdAt),
    settings: { defaultSpace: account.settings.defaultSpace, timezone: account.settings.timezone, language: account.settings.language },
    limits: {
      requestsPerHour: limit(limits.requestsPerHour),
      monthlyRequests: limit(limits.monthlyRequests),
      maxStorageMb: limit(limits.maxStorageMb),
      maxMemories: limit(limits.maxMemories),
      ingestItemsPerRequest: limits.ingestItemsPerRequest,
      concurrentJobs: limit(limits.concurrentJobs),
    },
    currentUsage: { ...currentUsage },
  };
}

export function presentUsage(report: UsageReport, mode: 'live' | 'test'): UsageResponse['usage'] {
  return {
    period: report.period,
    mode,
    startDate: iso(report.startDate),
    endDate: iso(report.endDate),
    summary: report.summary,
    limits: {
      requestsPerHour: limit(report.limits.requestsPerHour),
      monthlyRequests: limit(report.limits.monthlyRequests),
      usedPercentage: report.limits.usedPercentage,
    },
    storage: { ...report.storage, limitMb: limit(report.storage.limitMb) },
    ...(report.byEndpoint ? { byEndpoint: report.byEndpoint } : {}),
    ...(report.daily ? { daily: report.daily } : {}),
    ...(report.byKey ? { byKey: report.byKey } : {}),
  };
}

/** A folder watch with its live state. */
export function presentWatch(view: WatchView): Watch {
  const { record } = view;
  return {
    id: record.id,
    path: record.path,
    glob: record.glob,
    tags: [...record.tags],
    spaceId: record.spaceId,
    keepDeleted: record.keepDeleted,
    createdAt: iso(record.createdAt),
    state: view.state,
    fileCount: view.fileCount,
    lastEventAt: view.lastEventAt === null ? null : iso(view.lastEventAt),
    lastError: view.lastError,
    initialJobId: record.initialJobId,
  };
}

export function presentEntity(entity: EntityRecord): Entity {
  return {
    id: entity.id,
    name: entity.name,
    type: entity.type,
    aliases: [...entity.aliases],
    properties: { ...entity.properties },
    mentions: entity.mentions,
    firstSeen: iso(entity.firstSeen),
    lastSeen: iso(entity.lastSeen),
    relatedDocuments: [...entity.relatedDocuments],
  };
}

export function presentFact(fact: FactRecord): Fact {
  return {
    id: fact.id,
    statement: fact.statement,
    subject: fact.subject,
    predicate: fact.predicate,
    object: fact.object,
    category: fact.category,
    confidence: fact.confidence,
    source: { ...fact.source },
    extractedAt: iso(fact.extractedAt),
    validFrom: fact.validFrom === null ? null : iso(fact.validFrom),
    validTo: fact.validTo === null ? null : iso(fact.validTo),
    supersededBy: fact.supersededBy,
    supportingDocuments: [...new Set(fact.supports.map((support) => support.memoryId))],
  };
}

/** An answer; the memories it drew on only when the request asked for them (includeContext). */
export function presentAnswer(result: AskResult, includeContext: boolean): AskResponse {
  return {
    success: true as const,
    answer: result.answer,
    confidence: result.confidence,
    tokensUsed: result.tokensUsed,
    ...(includeContext
      ? {
          context: result.context.map(({ memory, relevance }) => ({
            id: memory.id,
            content: memory.content,
            title: memory.title,
            relevance,
          })),
        }
      : {}),
    noResult: result.noResult,
    ...(result.suggestion !== undefined ? { suggestion: result.suggestion } : {}),
    sources: result.sources.map((source) => ({ ...source })),
    model: result.model,
  };
}
