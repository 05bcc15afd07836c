import type { Memory, QueryResult } from '../src/api/contract.js';
import type { ApiKey, Profile as ProfileDto, UsageResponse, User } from '../src/api/contract.js';
import type { Profile, UsageReport } from '../src/core/accounts/account-service.js';
import { redactKey } from '../src/core/auth-service.js';
import type { QueryHit } from '../src/core/query-service.js';
import type { Account, ApiKeyRecord, JobRecord, MemoryRecord } from '../src/core/types.js';

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
