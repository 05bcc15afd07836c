import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreLeases } from '../../src/core/cluster/leases.js';
import { WatchCoordinator } from '../../src/core/cluster/watch-coordinator.js';
import type { WatchRecord } from '../../src/core/types.js';
import { openLanceStore, type LanceStore } from '../../src/store/lancedb/lancedb-store.js';

/**
 * Folder watches of two daemons on one store (two handles on one directory, as two daemons hold theirs):
 * one daemon follows a watch, only a daemon whose host can read the folder, and a dead daemon's watches are
 * taken over once its leases expire. The runner is a recording double: WatchService itself is tested in
 * test/http/watches.test.ts, and with two real daemons in test/e2e/shared-store.test.ts.
 */
const LEASE_MS = 1000;
let dir: string;
const stores: LanceStore[] = [];
const cleanups: (() => void)[] = [];
let sequence = 0;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mem-watch-coordinator-'));
  for (let i = 0; i < 2; i++) {
    stores.push(await openLanceStore({ uri: dir, vectorSpace: { modelId: 'test/model', dimension: 4 }, shared: { readConsistencyMs: 0 } }));
  }
});

afterAll(async () => {
  for (const cleanup of cleanups) cleanup();
  for (const store of stores) await store.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Daemon {
  readonly coordinator: WatchCoordinator;
  readonly leases: StoreLeases;
  /** Watch ids this daemon follows now. */
  readonly following: Set<string>;
  readonly adopted: string[];
  /** Folders this daemon's host can read. */
  readonly readable: Set<string>;
}

function daemon(store: LanceStore, readable: string[]): Daemon {
  const leases = new StoreLeases({ store: store.leaseStore, leaseMs: LEASE_MS });
  const following = new Set<string>();
  const adopted: string[] = [];
  const folders = new Set(readable);
  const coordinator = new WatchCoordinator({
    watches: () => store.watches.all(),
    leases,
    runner: {
      adopt: async (record) => {
        adopted.push(record.id);
        following.add(record.id);
      },
      drop: async (id) => {
        following.delete(id);
      },
    },
    readable: async (path) => folders.has(path),
  });
  cleanups.push(() => coordinator.close(), () => leases.close());
  return { coordinator, leases, following, adopted, readable: folders };
}

/** A daemon killed: its leases are no longer renewed, nothing is released. */
function kill(victim: Daemon): void {
  victim.leases.close();
}

async function watchOf(path: string): Promise<WatchRecord> {
  const record: WatchRecord = {
    id: `wch_test${++sequence}`,
    accountId: 'usr_watch',
    path,
    glob: '**/*',
    tags: [],
    spaceId: '',
    keepDeleted: false,
    createdAt: Date.now(),
    initialJobId: 'job_x',
  };
  await (stores[0] as LanceStore).watches.put(record);
  return record;
}

async function until(done: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('folder watches on a shared store', () => {
  it('a watch both hosts can read is followed by exactly one daemon; the other lists it as followed elsewhere', async () => {
    const record = await watchOf('/srv/shared-notes');
    const a = daemon(stores[0] as LanceStore, [record.path]);
    const b = daemon(stores[1] as LanceStore, [record.path]);
    await Promise.all([a.coordinator.sweep(), b.coordinator.sweep(), a.coordinator.sweep(), b.coordinator.sweep()]);
    const followers = [a, b].filter((candidate) => candidate.following.has(record.id));
    expect(followers).toHaveLength(1);
    expect([...a.adopted, ...b.adopted].filter((id) => id === record.id)).toHaveLength(1);
    const other = followers[0] === a ? b : a;
    expect(await other.coordinator.describe(record)).toEqual({ state: 'elsewhere', lastError: null });
    // Sweeping again changes nothing.
    await Promise.all([a.coordinator.sweep(), b.coordinator.sweep()]);
    expect([...a.adopted, ...b.adopted].filter((id) => id === record.id)).toHaveLength(1);
  });

  it('a folder only one host can read goes to that host; the other never takes it, and says why when no one follows it', async () => {
    const record = await watchOf('/home/ana/notes');
    const laptop = daemon(stores[1] as LanceStore, [record.path]);
    const server = daemon(stores[0] as LanceStore, []);
    await server.coordinator.sweep();
    expect(server.following.has(record.id)).toBe(false);
    expect(await server.coordinator.describe(record)).toMatchObject({ state: 'failed', lastError: expect.stringMatching(/cannot be read on this host/) });
    await laptop.coordinator.sweep();
    expect(laptop.following.has(record.id)).toBe(true);
    expect(await server.coordinator.describe(record)).toEqual({ state: 'elsewhere', lastError: null });

    kill(laptop);
    await new Promise((resolve) => setTimeout(resolve, LEASE_MS + 200));
    await server.coordinator.sweep();
    expect(server.following.has(record.id)).toBe(false);
    expect((await server.coordinator.describe(record)).state).toBe('failed');
  });

  it("a dead daemon's watch is taken over once its lease expires, and not before", async () => {
    const record = await watchOf('/srv/team-drive');
    const first = daemon(stores[0] as LanceStore, [record.path]);
    await first.coordinator.sweep();
    expect(first.following.has(record.id)).toBe(true);
    const second = daemon(stores[1] as LanceStore, [record.path]);
    kill(first);
    await second.coordinator.sweep();
    expect(second.following.has(record.id)).toBe(false);
    const killedAt = Date.now();
    await until(async () => {
      await second.coordinator.sweep();
      return second.following.has(record.id);
    });
    expect(Date.now() - killedAt).toBeGreaterThanOrEqual(LEASE_MS / 2);
    expect(second.adopted.filter((id) => id === record.id)).toHaveLength(1);
  });

  it('a watch removed through another daemon is dropped; a folder gone from this host is handed over', async () => {
    const removed = await watchOf('/srv/removed');
    const moving = await watchOf('/mnt/usb/notes');
    const a = daemon(stores[0] as LanceStore, [removed.path, moving.path]);
    await a.coordinator.sweep();
    expect(a.following.has(removed.id) && a.following.has(moving.id)).toBe(true);
    const b = daemon(stores[1] as LanceStore, [moving.path]);

    await (stores[1] as LanceStore).watches.delete(removed.accountId, removed.id);
    a.readable.delete(moving.path); // the disk was unplugged from a's host
    await a.coordinator.sweep();
    expect(a.following.has(removed.id)).toBe(false);
    expect(a.following.has(moving.id)).toBe(false);
    // Its lease runs out (a releasing daemon's last events settle meanwhile), then the other host takes it.
    await until(async () => {
      await b.coordinator.sweep();
      return b.following.has(moving.id);
    });
    expect(b.following.has(removed.id)).toBe(false);
  });

  it('hold() claims a new watch for the daemon that adds it; the other is refused', async () => {
    const record = await watchOf('/srv/new');
    const a = daemon(stores[0] as LanceStore, [record.path]);
    const b = daemon(stores[1] as LanceStore, [record.path]);
    expect(await a.coordinator.hold(record)).toBe(true);
    expect(await a.coordinator.hold(record)).toBe(true);
    expect(await b.coordinator.hold(record)).toBe(false);
    a.coordinator.release(record.id);
    expect(await b.coordinator.hold(record)).toBe(false); // a released lease still runs out its time
    await new Promise((resolve) => setTimeout(resolve, LEASE_MS + 100));
    expect(await b.coordinator.hold(record)).toBe(true);
  });
});
