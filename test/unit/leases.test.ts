import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import { Field, Float64, Schema, Utf8 } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreLeases, type LeaseStore } from '../../src/core/cluster/leases.js';
import { openLanceStore, type LanceStore } from '../../src/store/lancedb/lancedb-store.js';
import { isCommitConflict, TableWriter } from '../../src/store/lancedb/table-writer.js';

/**
 * Leases through two separate store handles on one directory (as two daemons would hold them): the
 * conditional update lets exactly one holder in, renewals keep it, expiry hands it over.
 */
let dir: string;
const stores: LanceStore[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mem-leases-'));
  for (let i = 0; i < 2; i++) {
    stores.push(await openLanceStore({ uri: dir, vectorSpace: { modelId: 'test/model', dimension: 4 }, shared: { readConsistencyMs: 0 } }));
  }
});

afterAll(async () => {
  for (const store of stores) await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const [a, b] = [() => (stores[0] as LanceStore).leaseStore, () => (stores[1] as LanceStore).leaseStore];

describe('leases in the store', () => {
  it('racing acquisitions of a new lease: exactly one wins, from either handle', async () => {
    for (let round = 0; round < 8; round++) {
      const name = `race-${round}`;
      const now = Date.now();
      const results = await Promise.all([
        a().tryAcquire(name, 'daemon-a', now + 60_000, now),
        b().tryAcquire(name, 'daemon-b', now + 60_000, now),
        a().tryAcquire(name, 'daemon-c', now + 60_000, now),
        b().tryAcquire(name, 'daemon-d', now + 60_000, now),
      ]);
      expect(results.filter(Boolean), `round ${round}: ${results}`).toHaveLength(1);
    }
  });

  it('the holder renews; others are refused until it expires, then one takes it over', async () => {
    const now = Date.now();
    expect(await a().tryAcquire('job', 'daemon-a', now + 1000, now)).toBe(true);
    expect(await b().tryAcquire('job', 'daemon-b', now + 1000, now + 10)).toBe(false);
    expect(await a().tryAcquire('job', 'daemon-a', now + 2000, now + 500)).toBe(true);
    // Before the renewed expiry: still refused; after it: taken over, and the old holder is refused.
    expect(await b().tryAcquire('job', 'daemon-b', now + 3000, now + 1500)).toBe(false);
    expect(await b().tryAcquire('job', 'daemon-b', now + 5000, now + 2001)).toBe(true);
    expect(await a().tryAcquire('job', 'daemon-a', now + 5000, now + 2002)).toBe(false);
  });

  it('a claim keeps renewing, and aborts its signal once another holder took the lease', async () => {
    const inner = a();
    let stolen = false;
    // A store that reports the lease taken from the second renewal on, as after a long pause of this daemon.
    const flaky: LeaseStore = {
      tryAcquire: async (name, holder, until, now) => (stolen ? false : inner.tryAcquire(name, holder, until, now)),
      holderOf: (name) => inner.holderOf(name),
    };
    const leases = new StoreLeases({ store: flaky, leaseMs: 300 });
    const claim = await leases.claim('renewed');
    expect(claim).not.toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 350));
    expect(claim?.signal.aborted).toBe(false); // renewed past its first expiry
    stolen = true;
    await new Promise<void>((resolve) => claim?.signal.addEventListener('abort', () => resolve()));
    expect(claim?.signal.aborted).toBe(true);
    // The other daemon's claim is refused while the lease is live.
    expect(await new StoreLeases({ store: b(), leaseMs: 60_000 }).claim('renewed')).toBeNull();
    leases.close();
  });

  it('confirm(): at once while the last renewal is recent; after a stall it renews first, and says false once the lease is gone', async () => {
    let clock = 1_000_000;
    const calls: number[] = [];
    let taken = false;
    const store: LeaseStore = {
      tryAcquire: async (_name, _holder, _until, now) => {
        calls.push(now);
        return !taken;
      },
      holderOf: async () => null,
    };
    // A minute's lease: the renewal timer does not fire during the test, as in a daemon whose event loop stalled.
    const leases = new StoreLeases({ store, leaseMs: 60_000, now: () => clock });
    const claim = await leases.claim('stalled');
    expect(calls).toHaveLength(1);
    clock += 30_000; // half the lease: certainly still held, no store call
    expect(await claim?.confirm()).toBe(true);
    expect(calls).toHaveLength(1);
    clock += 15_000; // less than a third left: renewed before the answer
    expect(await claim?.confirm()).toBe(true);
    expect(calls).toEqual([1_000_000, 1_045_000]);
    clock += 45_000; // renewed at 1_045_000, so again less than a third left; meanwhile another daemon took it
    taken = true;
    expect(await claim?.confirm()).toBe(false);
    expect(claim?.signal.aborted).toBe(true);
    leases.close();
  });

  it('a store error during renewal stops the work once the lease may have expired', async () => {
    let calls = 0;
    const failing: LeaseStore = {
      tryAcquire: async () => {
        calls += 1;
        if (calls === 1) return true;
        throw new Error('store out of reach');
      },
      holderOf: async () => null,
    };
    const errors: unknown[] = [];
    const leases = new StoreLeases({ store: failing, leaseMs: 300, onError: (error) => errors.push(error) });
    const claim = await leases.claim('unreachable');
    await new Promise<void>((resolve) => claim?.signal.addEventListener('abort', () => resolve()));
    expect(errors.length).toBeGreaterThan(0);
    leases.close();
  });
});

describe('commit conflicts', () => {
  it('recognises LanceDB conflict errors, and nothing else', () => {
    expect(isCommitConflict(new Error('Retryable commit conflict for version 12: This Update transaction was preempted by concurrent transaction Rewrite'))).toBe(true);
    expect(isCommitConflict(new Error('Commit conflict for version 3'))).toBe(true);
    expect(isCommitConflict(new Error('lance error: Too many concurrent writers. Attempted 5 times'))).toBe(true);
    expect(isCommitConflict(new Error('lance error: Incompatible transaction: This Update transaction is incompatible with concurrent transaction Overwrite at version 2.'))).toBe(true);
    expect(isCommitConflict(new Error('Table not found'))).toBe(false);
    expect(isCommitConflict(new Error('LanceError(IO): permission denied'))).toBe(false);
  });

  it('a write through a handle whose table another daemon created again (an overwrite) lands on the latest version (two daemons starting on one fresh store)', async () => {
    const overwritten = mkdtempSync(join(tmpdir(), 'mem-overwrite-'));
    try {
      const schema = new Schema([new Field('name', new Utf8(), false), new Field('expires_at', new Float64(), false)]);
      const [mine, theirs] = [await lancedb.connect(overwritten), await lancedb.connect(overwritten)];
      const writer = new TableWriter(await mine.createEmptyTable('leases', schema, { mode: 'create', existOk: true }));
      await writer.append([{ name: 'registry', expires_at: 1 }]);
      // The other daemon's create of the same table commits as an overwrite on top; then it adds its row.
      await (await theirs.createEmptyTable('leases', schema, { mode: 'overwrite' })).add([{ name: 'registry', expires_at: 5 }]);
      const result = await writer.exclusive((table) => table.update({ where: "name = 'registry'", valuesSql: { expires_at: '9' } }));
      expect(result.rowsUpdated).toBe(1);
      const rows = await (await theirs.openTable('leases')).query().toArray();
      expect(rows.map((row) => Number(row.expires_at))).toEqual([9]);
    } finally {
      rmSync(overwritten, { recursive: true, force: true });
    }
  });

  it('concurrent updates of one row through two handles all land (retried or rebased by LanceDB)', async () => {
    const [first, second] = stores as [LanceStore, LanceStore];
    const account = { id: 'acc_conflict', email: '', name: 'n', company: '', tier: 'free' as const, createdAt: 1, settings: { defaultSpace: '', timezone: 'UTC', language: 'en' }, isOwner: false };
    await first.accounts.create(account);
    await Promise.all(
      Array.from({ length: 10 }, (_, i) => (i % 2 ? first : second).accounts.replace({ ...account, name: `name-${i}` })),
    );
    const stored = await first.accounts.get('acc_conflict');
    expect(stored?.name).toMatch(/^name-\d$/);
    expect((await first.accounts.list()).filter((entry) => entry.id === 'acc_conflict')).toHaveLength(1);
  });
});
