import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { MemError } from '../errors.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { tenantOf } from './accounts/tenancy.js';
import { LocalLeases, type Leases } from './cluster/leases.js';
import { newId } from './ids.js';
import type { Storage } from './ports.js';
import type { Account, ApiKeyRecord, KeyType } from './types.js';

export const KEY_PREFIX = { live: 'svc_live_', test: 'svc_test_' } as const;
const KEY_RANDOM_CHARS = 40;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** lastUsedAt is written at most this often per key, off the request path. */
const LAST_USED_WRITE_INTERVAL_MS = 60_000;
/** How often a daemon waiting for another to create the owner (bootstrap) reads the store again. */
const BOOTSTRAP_POLL_MS = 200;

export const AUTH_MESSAGES = {
  missing: "Missing API key. Include it in the Authorization header as 'Bearer <API_KEY>'.",
  invalid: 'Invalid API key provided',
  expired: 'API key has expired',
  conflicting: 'Authorization and X-API-Key name different API keys; send one key.',
  missingHint: 'Send `Authorization: Bearer <API_KEY>` (or `X-API-Key: <API_KEY>`); `mem token` prints the CLI key.',
} as const;

/** How a request may present its key: `Authorization: Bearer <key>` (the spec) or `X-API-Key: <key>` (the hosted SDK). */
export interface KeyCredentials {
  readonly authorization?: string | undefined;
  readonly apiKey?: string | undefined;
}

/**
 * The one key a request presents. Either header alone will do, and then goes through exactly the same checks;
 * both naming different keys is refused rather than picking one, so a proxy that adds its own key can never
 * act with a different key than the client meant.
 */
export function presentedKey(credentials: KeyCredentials): string {
  const { authorization, apiKey } = credentials;
  const bearer = authorization === undefined ? undefined : /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
  const header = apiKey?.trim() || undefined;
  if (bearer !== undefined && header !== undefined && bearer !== header) {
    throw new MemError('UNAUTHORIZED', AUTH_MESSAGES.conflicting);
  }
  const value = bearer ?? header;
  if (value === undefined) throw new MemError('UNAUTHORIZED', AUTH_MESSAGES.missing, { hint: AUTH_MESSAGES.missingHint });
  return value;
}

export interface AuthContext {
  readonly account: Account;
  readonly key: ApiKeyRecord;
  /** Whose data this request sees: the account's live data, or its test sandbox for test keys. */
  readonly tenant: string;
}

export interface NewKeyInput {
  readonly name: string;
  readonly type: KeyType;
  readonly rateLimitPerHour?: number | undefined;
  readonly monthlyLimit?: number | undefined;
  readonly expiresAt?: number | undefined;
  readonly readOnly?: boolean | undefined;
}

export function hashKey(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

/** 40 base-62 characters (~238 bits) from the CSPRNG; rejection sampling keeps the alphabet unbiased. */
function randomKeyBody(): string {
  let out = '';
  while (out.length < KEY_RANDOM_CHARS) {
    for (const byte of randomBytes(64)) {
      if (byte < 248) out += BASE62[byte % 62];
      if (out.length === KEY_RANDOM_CHARS) break;
    }
  }
  return out;
}

export function redactKey(key: ApiKeyRecord): string {
  return `${KEY_PREFIX[key.type]}...${key.last4}`;
}

/**
 * API keys and the accounts they belong to. Keys are stored as sha256 hashes only; a request's key is
 * hashed, looked up, and compared in constant time. Authenticated keys are cached in memory; every
 * regenerate or delete evicts them, so an old value fails on the very next request.
 */
export class AuthService {
  private readonly cache = new Map<string, { context: AuthContext; at: number }>();
  private readonly lastUsedWrites = new Map<string, number>();

  /**
   * @param options.cacheMs how long an authenticated key is trusted without reading it again: set when other
   *   daemons share the store and may regenerate or delete it (default: until this daemon changes it).
   * @param options.leases several daemons on one store: the owner is created under a lease (bootstrap).
   * @param options.readConsistencyMs how stale this daemon's reads of the store may be (bootstrap).
   */
  constructor(
    private readonly storage: Storage,
    private readonly now: () => number = Date.now,
    private readonly options: { readonly cacheMs?: number; readonly leases?: Leases; readonly readConsistencyMs?: number } = {},
  ) {}

  /**
   * On an empty store: creates the owner account and its first live key (returned once). Two daemons
   * starting at once on a fresh shared store would each find no owner and create one, so the creation runs
   * under a lease: the daemon that gets it creates the owner, the other waits until it reads that owner.
   */
  async bootstrap(): Promise<{ account: Account; firstKey: string | null }> {
    const leases = this.options.leases ?? new LocalLeases();
    let waited = false;
    for (;;) {
      const owner = await this.storage.accounts.owner();
      if (owner) return { account: owner, firstKey: null };
      const claim = await leases.claim('bootstrap:owner');
      if (!claim) {
        waited = true;
        await sleep(BOOTSTRAP_POLL_MS);
        continue;
      }
      try {
        // A daemon that held the lease before may have created the owner just before its lease ran out: wait
        // out this daemon's read staleness, then look again, under the lease.
        if (waited && this.options.readConsistencyMs) await sleep(this.options.readConsistencyMs);
        const created = waited ? await this.storage.accounts.owner() : null;
        if (created) return { account: created, firstKey: null };
        return await this.createOwner();
      } finally {
        claim.stop();
      }
    }
  }

  private async createOwner(): Promise<{ account: Account; firstKey: string }> {
    const account: Account = {
      id: newId('account'),
      email: '',
      name: 'Owner',
      company: '',
      tier: 'enterprise',
      createdAt: this.now(),
      settings: { defaultSpace: '', timezone: 'UTC', language: 'en' },
      isOwner: true,
    };
    await this.storage.accounts.create(account);
    const { value } = await this.createKey(account.id, { name: 'default', type: 'live' });
    return { account, firstKey: value };
  }

  async authenticate(credentials: KeyCredentials): Promise<AuthContext> {
    const value = presentedKey(credentials);
    const hash = hashKey(value);
    const cached = this.cache.get(hash);
    const fresh = cached && (this.options.cacheMs === undefined || this.now() - cached.at < this.options.cacheMs);
    let context = fresh ? cached.context : undefined;
    if (!context) {
      const key = await this.storage.keys.findByHash(hash);
      if (!key || !safeEqual(key.hash, hash)) throw new MemError('UNAUTHORIZED', AUTH_MESSAGES.invalid);
      const account = await this.storage.accounts.get(key.accountId);
      if (!account) throw new MemError('UNAUTHORIZED', AUTH_MESSAGES.invalid);
      context = { account, key, tenant: tenantOf(account.id, key.type) };
      this.cache.set(hash, { context, at: this.now() });
    }
    if (context.key.expiresAt !== null && context.key.expiresAt <= this.now()) {
      throw new MemError('UNAUTHORIZED', AUTH_MESSAGES.expired, {
        hint: 'Create a new key with `mem keys create` and log in with it.',
      });
    }
    this.touch(context.key);
    return context;
  }

  private touch(key: ApiKeyRecord): void {
    const now = this.now();
    const last = this.lastUsedWrites.get(key.id) ?? 0;
    if (now - last < LAST_USED_WRITE_INTERVAL_MS) return;
    this.lastUsedWrites.set(key.id, now);
    void this.storage.keys
      .get(key.accountId, key.id)
      .then((current) => (current ? this.storage.keys.replace({ ...current, lastUsedAt: now }) : undefined))
      .catch(() => undefined);
  }

  async createKey(accountId: string, input: NewKeyInput): Promise<{ record: ApiKeyRecord; value: string }> {
    const value = KEY_PREFIX[input.type] + randomKeyBody();
    const record: ApiKeyRecord = {
      id: newId('key'),
      accountId,
      name: input.name,
      type: input.type,
      hash: hashKey(value),
      last4: value.slice(-4),
      createdAt: this.now(),
      expiresAt: input.expiresAt ?? null,
      lastUsedAt: null,
      rateLimitPerHour: input.rateLimitPerHour ?? null,
      monthlyLimit: input.monthlyLimit ?? null,
      readOnly: input.readOnly ?? false,
    };
    await this.storage.keys.create(record);
    return { record, value };
  }

  listKeys(accountId: string): Promise<ApiKeyRecord[]> {
    return this.storage.keys.listForAccount(accountId);
  }

  private async ownKey(accountId: string, id: string): Promise<ApiKeyRecord> {
    const key = await this.storage.keys.get(accountId, id);
    // Other accounts' key ids get the same 404 as ids that never existed.
    if (!key) throw new MemError('NOT_FOUND', 'API key not found', { details: { id } });
    return key;
  }

  async regenerate(accountId: string, id: string): Promise<{ record: ApiKeyRecord; value: string }> {
    const key = await this.ownKey(accountId, id);
    const value = KEY_PREFIX[key.type] + randomKeyBody();
    const record: ApiKeyRecord = { ...key, hash: hashKey(value), last4: value.slice(-4) };
    await this.storage.keys.replace(record);
    this.cache.delete(key.hash);
    return { record, value };
  }

  async deleteKey(accountId: string, id: string): Promise<void> {
    const key = await this.ownKey(accountId, id);
    await this.storage.keys.delete(accountId, id);
    this.cache.delete(key.hash);
  }

  /** Cached contexts of an account are dropped after its record changes (tier, settings) or it is removed. */
  forgetAccount(accountId: string): void {
    for (const [hash, entry] of this.cache) if (entry.context.account.id === accountId) this.cache.delete(hash);
  }
}

function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
