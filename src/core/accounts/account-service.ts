import { randomBytes } from 'node:crypto';
import { MemError } from '../../errors.js';
import type { AuthContext, AuthService } from '../auth-service.js';
import { newId } from '../ids.js';
import type { Storage } from '../ports.js';
import { Zone } from '../query/time.js';
import type { Account, ApiKeyRecord } from '../types.js';
import type { PlanLimits, PlanTable, Tier } from './plans.js';
import type { RateLimiter } from './rate-limiter.js';
import { tenantsOf } from './tenancy.js';
import { periodStart, summarizeUsage, type UsageBreakdown, type UsagePeriod, type UsageStatistics } from './usage-report.js';
import type { UsageRecorder } from './usage-recorder.js';

const MB = 1024 * 1024;
/** How long a non-enterprise account's storage figures are trusted before they are counted again. */
const STORAGE_CACHE_MS = 5_000;

export interface StorageUse {
  readonly memoryCount: number;
  readonly bytes: number;
}

export interface Profile {
  readonly account: Account;
  readonly limits: PlanLimits;
  readonly currentUsage: { readonly memoryCount: number; readonly storageMb: number; readonly monthlyRequests: number };
}

export interface UsageReport extends UsageStatistics {
  readonly limits: { readonly requestsPerHour: number | null; readonly monthlyRequests: number | null; readonly usedPercentage: number };
  readonly storage: { readonly memoryCount: number; readonly totalSizeMb: number; readonly limitMb: number | null; readonly usedPercentage: number };
}

export interface ProfilePatch {
  readonly name?: string | undefined;
  readonly company?: string | undefined;
  readonly settings?: { defaultSpace?: string | undefined; timezone?: string | undefined; language?: string | undefined } | undefined;
}

export interface NewUser {
  readonly email: string;
  readonly name: string;
  readonly company?: string | undefined;
  readonly tier: Tier;
}

const round = (value: number) => Math.round(value * 100) / 100;
const percent = (part: number, whole: number | null) => (whole === null || whole === 0 ? 0 : round((part / whole) * 100));

/**
 * Accounts as their users see them: profile, usage statistics, plan quotas, and the owner's user management.
 * Storage figures count both of an account's tenants (live data and the test sandbox): plan limits apply to
 * the account.
 */
export class AccountService {
  private readonly storageCache = new Map<string, { use: StorageUse; at: number }>();

  constructor(
    private readonly deps: {
      readonly storage: Storage;
      readonly auth: AuthService;
      readonly limiter: RateLimiter;
      readonly recorder: UsageRecorder;
      readonly plans: PlanTable;
      readonly now?: () => number;
    },
  ) {}

  private now(): number {
    return (this.deps.now ?? Date.now)();
  }

  plan(account: Account): PlanLimits {
    return this.deps.plans[account.tier];
  }

  async storageUse(accountId: string): Promise<StorageUse> {
    let memoryCount = 0;
    let bytes = 0;
    for (const tenant of tenantsOf(accountId)) {
      const store = this.deps.storage.memories(tenant);
      const [count, size] = await Promise.all([store.count(), store.contentBytes()]);
      memoryCount += count;
      bytes += size;
    }
    const use = { memoryCount, bytes };
    this.storageCache.set(accountId, { use, at: this.now() });
    return use;
  }

  /**
   * Refuses a write that would take the account past its plan's memory count or storage (LIMIT_EXCEEDED),
   * before anything is written. Unlimited plans skip the count entirely.
   */
  async assertCanStore(account: Account, adding: { memories: number; bytes: number }): Promise<void> {
    const plan = this.plan(account);
    if (plan.maxMemories === null && plan.maxStorageMb === null) return;
    const cached = this.storageCache.get(account.id);
    const use = cached && this.now() - cached.at < STORAGE_CACHE_MS ? cached.use : await this.storageUse(account.id);
    if (plan.maxMemories !== null && use.memoryCount + adding.memories > plan.maxMemories) {
      throw new MemError(
        'LIMIT_EXCEEDED',
        `Memory limit reached: the ${account.tier} plan allows ${plan.maxMemories.toLocaleString('en-US')} memories and this account has ${use.memoryCount.toLocaleString('en-US')}.`,
        { hint: 'Delete memories you no longer need, or ask the owner to change your plan (`mem users set-tier`).' },
      );
    }
    if (plan.maxStorageMb !== null && use.bytes + adding.bytes > plan.maxStorageMb * MB) {
      throw new MemError(
        'LIMIT_EXCEEDED',
        `Storage limit reached: the ${account.tier} plan allows ${plan.maxStorageMb} MB and this account uses ${round(use.bytes / MB)} MB.`,
        { hint: 'Delete memories you no longer need, or ask the owner to change your plan (`mem users set-tier`).' },
      );
    }
    // Counted optimistically until the next recount, so a burst of writes cannot overshoot the cached figure.
    this.storageCache.set(account.id, {
      use: { memoryCount: use.memoryCount + adding.memories, bytes: use.bytes + adding.bytes },
      at: cached && use === cached.use ? cached.at : this.now(),
    });
  }

  /**
   * Counts extra units of work done for one request (re-processing turbo memories) toward the limits and in
   * the usage statistics, as requests to `endpoint`.
   */
  async chargeExtra(context: AuthContext, endpoint: string, units: number): Promise<void> {
    if (units <= 0) return;
    await this.deps.limiter.consume(context.account, context.key, units);
    const at = this.now();
    for (let i = 0; i < units; i++) {
      this.deps.recorder.record({
        accountId: context.account.id,
        keyId: context.key.id,
        keyType: context.key.type,
        method: 'POST',
        endpoint,
        status: 200,
        latencyMs: 0,
        at,
      });
    }
  }

  async profile(context: AuthContext): Promise<Profile> {
    const [use, monthlyRequests] = await Promise.all([
      this.storageUse(context.account.id),
      this.deps.limiter.monthlyRequests(context.account.id),
    ]);
    return {
      account: context.account,
      limits: this.plan(context.account),
      currentUsage: { memoryCount: use.memoryCount, storageMb: round(use.bytes / MB), monthlyRequests },
    };
  }

  async updateProfile(context: AuthContext, patch: ProfilePatch): Promise<Account> {
    const current = (await this.deps.storage.accounts.get(context.account.id)) ?? context.account;
    const settings = { ...current.settings };
    if (patch.settings?.timezone !== undefined) settings.timezone = Zone.of(patch.settings.timezone).name;
    if (patch.settings?.defaultSpace !== undefined) settings.defaultSpace = patch.settings.defaultSpace;
    if (patch.settings?.language !== undefined) settings.language = patch.settings.language;
    const updated: Account = {
      ...current,
      ...(patch.name !== undefined ? { name: patch.name } : {}),
      ...(patch.company !== undefined ? { company: patch.company } : {}),
      settings,
    };
    await this.deps.storage.accounts.replace(updated);
    this.deps.auth.forgetAccount(updated.id);
    return updated;
  }

  /** Usage of the calling key's mode (live keys see live traffic, test keys test traffic). */
  async usage(context: AuthContext, options: { period: UsagePeriod; breakdown?: UsageBreakdown | undefined }): Promise<UsageReport> {
    await this.deps.recorder.flush();
    const { account } = context;
    const now = this.now();
    const zone = Zone.of(account.settings.timezone);
    const start = periodStart(options.period, account, now, zone);
    const [events, keys, use, monthlyRequests] = await Promise.all([
      this.deps.storage.usage.events(account.id, { since: start, until: now + 1 }, context.key.type),
      options.breakdown === 'key' ? this.deps.auth.listKeys(account.id) : Promise.resolve([] as ApiKeyRecord[]),
      this.storageUse(account.id),
      this.deps.limiter.monthlyRequests(account.id),
    ]);
    const statistics = summarizeUsage(events, { period: options.period, start, end: now, zone, breakdown: options.breakdown, keys });
    const plan = this.plan(account);
    const limitMb = plan.maxStorageMb;
    return {
      ...statistics,
      limits: {
        requestsPerHour: plan.requestsPerHour,
        monthlyRequests: plan.monthlyRequests,
        usedPercentage: percent(monthlyRequests, plan.monthlyRequests),
      },
      storage: {
        memoryCount: use.memoryCount,
        totalSizeMb: round(use.bytes / MB),
        limitMb,
        usedPercentage: limitMb === null ? 0 : percent(use.bytes / MB, limitMb),
      },
    };
  }

  private readonly secrets = new Map<string, Promise<string>>();

  /** The secret that signs this account's webhooks: `whsec_` + 32 base-62 characters, created on first use. */
  webhookSecret(accountId: string): Promise<string> {
    let pending = this.secrets.get(accountId);
    if (!pending) {
      pending = (async () => {
        const account = await this.deps.storage.accounts.get(accountId);
        if (!account) throw new MemError('NOT_FOUND', 'Account not found');
        if (account.webhookSecret) return account.webhookSecret;
        const secret = `whsec_${base62(32)}`;
        await this.deps.storage.accounts.replace({ ...account, webhookSecret: secret });
        this.deps.auth.forgetAccount(accountId);
        return secret;
      })();
      pending.catch(() => this.secrets.delete(accountId));
      this.secrets.set(accountId, pending);
    }
    return pending;
  }

  // ---- users (owner only) -------------------------------------------------------------------------------

  private requireOwner(context: AuthContext): void {
    if (!context.account.isOwner) {
      throw new MemError('FORBIDDEN', 'Only the owner account can manage users.', {
        hint: "Use the owner's key (the one `mem daemon start` created on first start).",
      });
    }
  }

  private async user(id: string): Promise<Account> {
    const account = await this.deps.storage.accounts.get(id);
    if (!account) throw new MemError('NOT_FOUND', 'User not found', { details: { id } });
    return account;
  }

  async listUsers(context: AuthContext): Promise<Account[]> {
    this.requireOwner(context);
    return (await this.deps.storage.accounts.list()).sort((a, b) => a.createdAt - b.createdAt);
  }

  /** Creates an account and its first live key (the value is returned once). */
  async createUser(context: AuthContext, input: NewUser): Promise<{ account: Account; key: ApiKeyRecord; value: string }> {
    this.requireOwner(context);
    const email = input.email.trim().toLowerCase();
    if (await this.deps.storage.accounts.findByEmail(email)) {
      throw new MemError('VALIDATION_ERROR', `A user with the email ${email} already exists.`);
    }
    const account: Account = {
      id: newId('account'),
      email,
      name: input.name,
      company: input.company ?? '',
      tier: input.tier,
      createdAt: this.now(),
      settings: { defaultSpace: '', timezone: 'UTC', language: 'en' },
      isOwner: false,
    };
    await this.deps.storage.accounts.create(account);
    const { record, value } = await this.deps.auth.createKey(account.id, { name: 'default', type: 'live' });
    return { account, key: record, value };
  }

  async updateUser(context: AuthContext, id: string, patch: { tier?: Tier | undefined; name?: string | undefined; company?: string | undefined }): Promise<Account> {
    this.requireOwner(context);
    const current = await this.user(id);
    if (current.isOwner && patch.tier !== undefined && patch.tier !== current.tier) {
      throw new MemError('VALIDATION_ERROR', "The owner account's plan is always enterprise.");
    }
    const updated: Account = {
      ...current,
      ...(patch.tier !== undefined ? { tier: patch.tier } : {}),
      ...(patch.name !== undefined ? { name: patch.name } : {}),
      ...(patch.company !== undefined ? { company: patch.company } : {}),
    };
    await this.deps.storage.accounts.replace(updated);
    this.deps.auth.forgetAccount(id);
    this.storageCache.delete(id);
    return updated;
  }

  /** Removes a user with every key and every piece of their data, permanently. */
  async removeUser(context: AuthContext, id: string): Promise<void> {
    this.requireOwner(context);
    const account = await this.user(id);
    if (account.isOwner) throw new MemError('VALIDATION_ERROR', 'The owner account cannot be removed.');
    await this.deps.storage.accounts.delete(id);
    this.deps.auth.forgetAccount(id);
    await this.deps.storage.purge(tenantsOf(id));
    this.deps.limiter.forget(id);
    this.storageCache.delete(id);
  }
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

function base62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}
