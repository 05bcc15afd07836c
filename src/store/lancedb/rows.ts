import type { Account, ApiKeyRecord, JobRecord, MemoryRecord, PendingSaveRecord, UsageEvent, WatchRecord } from '../../core/types.js';

/** Conversions between domain records and Arrow rows. Values read back from disk are checked, not cast. */
type Row = Record<string, unknown>;

export function str(row: Row, key: string): string {
  const value = row[key];
  return typeof value === 'string' ? value : '';
}

export function optStr(row: Row, key: string): string | null {
  const value = row[key];
  return typeof value === 'string' ? value : null;
}

export function num(row: Row, key: string): number {
  const value = row[key];
  return typeof value === 'number' ? value : Number(value ?? 0);
}

export function optNum(row: Row, key: string): number | null {
  const value = row[key];
  if (value === null || value === undefined) return null;
  return typeof value === 'number' ? value : Number(value);
}

export function strings(row: Row, key: string): string[] {
  const value = row[key] as { toArray?: () => unknown[] } | unknown[] | null | undefined;
  if (!value) return [];
  const items = Array.isArray(value) ? value : typeof value.toArray === 'function' ? Array.from(value.toArray()) : [];
  return items.filter((item): item is string => typeof item === 'string');
}

export function json<T>(text: string, fallback: T): T {
  try {
    const parsed: unknown = JSON.parse(text);
    return (parsed ?? fallback) as T;
  } catch {
    return fallback;
  }
}

export function memoryToRow(accountId: string, memory: MemoryRecord): Row {
  return {
    id: memory.id,
    account_id: accountId,
    title: memory.title,
    content: memory.content,
    description: memory.description,
    tags: [...memory.tags],
    metadata: JSON.stringify(memory.metadata),
    space_id: memory.spaceId,
    created_at: memory.createdAt,
    updated_at: memory.updatedAt,
    content_hash: memory.contentHash,
    turbo: memory.turbo,
    size_bytes: Buffer.byteLength(memory.content, 'utf8'),
    context: memory.context,
    author: memory.author,
  };
}

export function rowToMemory(row: Row): MemoryRecord {
  const metadata = json<unknown>(str(row, 'metadata'), {});
  return {
    id: str(row, 'id'),
    title: str(row, 'title'),
    content: str(row, 'content'),
    description: str(row, 'description'),
    tags: strings(row, 'tags'),
    metadata: metadata && typeof metadata === 'object' && !Array.isArray(metadata) ? (metadata as Record<string, unknown>) : {},
    spaceId: str(row, 'space_id'),
    createdAt: num(row, 'created_at'),
    updatedAt: optNum(row, 'updated_at'),
    contentHash: str(row, 'content_hash'),
    turbo: row.turbo === true,
    context: str(row, 'context'),
    author: str(row, 'author'),
  };
}

export function accountToRow(account: Account): Row {
  return {
    id: account.id,
    email: account.email,
    name: account.name,
    company: account.company,
    tier: account.tier,
    created_at: account.createdAt,
    // The webhook secret rides in the settings JSON (no schema change); presenters never show it.
    settings: JSON.stringify({ ...account.settings, ...(account.webhookSecret ? { webhookSecret: account.webhookSecret } : {}) }),
    is_owner: account.isOwner,
  };
}

export function rowToAccount(row: Row): Account {
  const tier = str(row, 'tier');
  const settings = json<Partial<Account['settings']> & { webhookSecret?: string }>(str(row, 'settings'), {});
  return {
    id: str(row, 'id'),
    email: str(row, 'email'),
    name: str(row, 'name'),
    company: str(row, 'company'),
    tier: tier === 'free' || tier === 'pro' ? tier : 'enterprise',
    createdAt: num(row, 'created_at'),
    settings: {
      defaultSpace: settings.defaultSpace ?? '',
      timezone: settings.timezone ?? 'UTC',
      language: settings.language ?? 'en',
    },
    isOwner: row.is_owner === true,
    ...(typeof settings.webhookSecret === 'string' ? { webhookSecret: settings.webhookSecret } : {}),
  };
}

export function keyToRow(key: ApiKeyRecord): Row {
  return {
    id: key.id,
    account_id: key.accountId,
    name: key.name,
    type: key.type,
    hash: key.hash,
    last4: key.last4,
    created_at: key.createdAt,
    expires_at: key.expiresAt,
    last_used_at: key.lastUsedAt,
    rate_limit_per_hour: key.rateLimitPerHour,
    monthly_limit: key.monthlyLimit,
    read_only: key.readOnly,
  };
}

export function rowToKey(row: Row): ApiKeyRecord {
  return {
    id: str(row, 'id'),
    accountId: str(row, 'account_id'),
    name: str(row, 'name'),
    type: str(row, 'type') === 'test' ? 'test' : 'live',
    hash: str(row, 'hash'),
    last4: str(row, 'last4'),
    createdAt: num(row, 'created_at'),
    expiresAt: optNum(row, 'expires_at'),
    lastUsedAt: optNum(row, 'last_used_at'),
    rateLimitPerHour: optNum(row, 'rate_limit_per_hour'),
    monthlyLimit: optNum(row, 'monthly_limit'),
    readOnly: row.read_only === true,
  };
}

const STATUSES = new Set(['pending', 'processing', 'completed', 'failed']);
function status(row: Row): 'pending' | 'processing' | 'completed' | 'failed' {
  const value = str(row, 'status');
  return STATUSES.has(value) ? (value as 'pending') : 'failed';
}

export function pendingToRow(record: PendingSaveRecord): Row {
  return {
    id: record.id,
    account_id: record.accountId,
    status: record.status,
    document_id: record.documentId,
    error: record.error,
    request: record.request,
    created_at: record.createdAt,
    updated_at: record.updatedAt,
  };
}

export function rowToPending(row: Row): PendingSaveRecord {
  return {
    id: str(row, 'id'),
    accountId: str(row, 'account_id'),
    status: status(row),
    documentId: optStr(row, 'document_id'),
    error: optStr(row, 'error'),
    request: str(row, 'request'),
    createdAt: num(row, 'created_at'),
    updatedAt: num(row, 'updated_at'),
  };
}

export function jobToRow(record: JobRecord): Row {
  return {
    id: record.id,
    account_id: record.accountId,
    kind: record.kind,
    status: record.status,
    total: record.total,
    completed: record.completed,
    failed: record.failed,
    error: record.error,
    payload: record.payload,
    created_at: record.createdAt,
    started_at: record.startedAt,
    finished_at: record.finishedAt,
  };
}

export function rowToJob(row: Row): JobRecord {
  return {
    id: str(row, 'id'),
    accountId: str(row, 'account_id'),
    kind: str(row, 'kind'),
    status: status(row),
    total: num(row, 'total'),
    completed: num(row, 'completed'),
    failed: num(row, 'failed'),
    error: optStr(row, 'error'),
    payload: str(row, 'payload'),
    createdAt: num(row, 'created_at'),
    startedAt: optNum(row, 'started_at'),
    finishedAt: optNum(row, 'finished_at'),
  };
}

export function usageToRow(event: UsageEvent): Row {
  return {
    account_id: event.accountId,
    key_id: event.keyId,
    key_type: event.keyType,
    method: event.method,
    endpoint: event.endpoint,
    status: event.status,
    latency_ms: event.latencyMs,
    at: event.at,
  };
}

export function rowToUsage(row: Row): UsageEvent {
  return {
    accountId: str(row, 'account_id'),
    keyId: str(row, 'key_id'),
    keyType: str(row, 'key_type') === 'test' ? 'test' : 'live',
    method: str(row, 'method'),
    endpoint: str(row, 'endpoint'),
    status: num(row, 'status'),
    latencyMs: num(row, 'latency_ms'),
    at: num(row, 'at'),
  };
}

export function watchToRow(record: WatchRecord): Row {
  return {
    id: record.id,
    account_id: record.accountId,
    path: record.path,
    glob: record.glob,
    tags: [...record.tags],
    space_id: record.spaceId,
    keep_deleted: record.keepDeleted,
    created_at: record.createdAt,
    initial_job_id: record.initialJobId,
  };
}

export function rowToWatch(row: Row): WatchRecord {
  return {
    id: str(row, 'id'),
    accountId: str(row, 'account_id'),
    path: str(row, 'path'),
    glob: str(row, 'glob'),
    tags: strings(row, 'tags'),
    spaceId: str(row, 'space_id'),
    keepDeleted: row.keep_deleted === true,
    createdAt: num(row, 'created_at'),
    initialJobId: optStr(row, 'initial_job_id'),
  };
}
