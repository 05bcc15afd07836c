import { describe, expect, it } from 'vitest';
import { Admission, type LaneLimits } from '../../src/core/scheduling/admission.js';
import { MemError } from '../../src/errors.js';
import type { LoadStatus } from '../../src/api/contract.js';
import { loadRows } from '../../src/cli/load-rows.js';

/** A load section with nothing in it but what `mem status` needs to render its rows. */
const STATUS_LOAD: Omit<LoadStatus, 'lanes'> = {
  windowSeconds: 10,
  eventLoop: { delayP50Ms: 1, delayP99Ms: 2, delayMaxMs: 3, utilization: 0.1 },
  cpu: { process: 0.5, main: 0.2, workers: {}, other: 0.3 },
  requests: [],
  embedder: null,
  commits: null,
  vectorSearches: null,
  searchTables: null,
};

const limits = (search: LaneLimits, read: LaneLimits = { concurrency: 2, maxQueued: 2 }) => ({
  read,
  search,
  write: { concurrency: 1, maxQueued: 1 },
  bulk: { concurrency: 1, maxQueued: 1 },
});

describe('admission lanes', () => {
  it('runs at most `concurrency` per lane and admits the waiting ones in order of arrival', async () => {
    const admission = new Admission(limits({ concurrency: 2, maxQueued: 10 }));
    const first = await admission.enter('search');
    const second = await admission.enter('search');
    const order: number[] = [];
    const waiting = [3, 4, 5].map((n) => admission.enter('search').then((admitted) => (order.push(n), admitted)));
    await Promise.resolve();
    expect(admission.load().search).toMatchObject({ running: 2, queued: 3, concurrency: 2, maxQueued: 10 });
    expect(loadRows({ ...STATUS_LOAD, lanes: admission.load() }).find(([name]) => name === 'queues')?.[1]).toContain('search 2/2 running, 3 waiting');
    expect(loadRows({ ...STATUS_LOAD, lanes: admission.load() }).find(([name]) => name === 'vector queries')).toBeUndefined();
    const shared = { queriesPerSecond: 3, searchesPerSecond: 3.9, searchesPerQuery: 1.3 };
    expect(loadRows({ ...STATUS_LOAD, vectorSearches: shared, lanes: admission.load() }).find(([name]) => name === 'vector queries')?.[1]).toBe(
      '3/s for 3.9 searches/s, searches per vector query 1.3',
    );
    first.release();
    second.release();
    const third = await waiting[0];
    const fourth = await waiting[1];
    expect(order).toEqual([3, 4]);
    third?.release();
    (await waiting[2])?.release();
    fourth?.release();
    expect(order).toEqual([3, 4, 5]);
    expect(admission.load().search).toMatchObject({ running: 0, queued: 0, admitted: 5, rejected: 0 });
  });

  it('a cheap read is admitted at once while the search lane is full and queued', async () => {
    const admission = new Admission(limits({ concurrency: 1, maxQueued: 5 }));
    const busy = await admission.enter('search');
    const queuedSearch = admission.enter('search');
    let readAdmitted = false;
    const read = admission.enter('read').then((admitted) => {
      readAdmitted = true;
      return admitted;
    });
    (await read).release();
    expect(readAdmitted).toBe(true);
    expect(admission.load().search.queued).toBe(1);
    busy.release();
    (await queuedSearch).release();
  });

  it('refuses one more than the queue holds with RATE_LIMITED and a Retry-After of at least 1 s', async () => {
    const admission = new Admission(limits({ concurrency: 1, maxQueued: 1 }));
    const running = await admission.enter('search');
    const queued = admission.enter('search');
    let refused: unknown;
    try {
      await admission.enter('search');
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(MemError);
    const error = refused as MemError;
    expect(error.code).toBe('RATE_LIMITED');
    expect(error.status).toBe(429);
    expect(error.extra?.retryAfter).toBeGreaterThanOrEqual(1);
    expect(admission.load().search).toMatchObject({ rejected: 1, queued: 1, running: 1 });
    running.release();
    (await queued).release();
    // With room again, the lane admits.
    (await admission.enter('search')).release();
  });

  it('a release called twice frees one slot only', async () => {
    const admission = new Admission(limits({ concurrency: 1, maxQueued: 5 }));
    const first = await admission.enter('search');
    const second = admission.enter('search');
    const third = admission.enter('search');
    first.release();
    first.release();
    const secondAdmitted = await second;
    expect(admission.load().search).toMatchObject({ running: 1, queued: 1 });
    secondAdmitted.release();
    (await third).release();
    expect(admission.load().search.running).toBe(0);
  });

  it('reports how long a request waited for its slot', async () => {
    let now = 0;
    const admission = new Admission(limits({ concurrency: 1, maxQueued: 5 }), () => now);
    const first = await admission.enter('search');
    const second = admission.enter('search');
    now = 40;
    first.release();
    expect((await second).queuedMs).toBe(40);
    expect(first.queuedMs).toBe(0);
  });

  it("lanes that share lend idle slots; a lane's own slots stay its own, and nobody borrows while it waits", async () => {
    const admission = new Admission(
      {
        read: { concurrency: 1, maxQueued: 5 },
        search: { concurrency: 2, maxQueued: 5 },
        write: { concurrency: 2, maxQueued: 5 },
        bulk: { concurrency: 1, maxQueued: 5 },
      },
      undefined,
      [['search', 'write']],
    );
    // No writes: searches run on the write lane's slots too, four at once, and a fifth waits.
    const searches = await Promise.all([1, 2, 3, 4].map(() => admission.enter('search')));
    const order: string[] = [];
    const fifth = admission.enter('search').then((admitted) => (order.push('search 5'), admitted));
    await Promise.resolve();
    expect(admission.load().search).toMatchObject({ running: 4, queued: 1, concurrency: 2 });
    expect(loadRows({ ...STATUS_LOAD, lanes: admission.load() }).find(([name]) => name === 'queues')?.[1]).toContain(
      'search 4/2 running (2 on lent slots), 1 waiting · write 0/2 running, 0 waiting',
    );
    // Reads do not share: their lane is as it was.
    const read = await admission.enter('read');
    expect(admission.load().read.running).toBe(1);
    // A write runs at once on a slot of its own, lent or not: nothing waits for the searches that hold them.
    const write = await admission.enter('write');
    expect(admission.load().write).toMatchObject({ running: 1, queued: 0 });
    // The group's four slots are taken (three searches and the write once one search ends): the fifth waits on.
    searches[0]?.release();
    await Promise.resolve();
    expect(order).toEqual([]);
    // The write ends: a slot is idle again, and the waiting search borrows it.
    write.release();
    await fifth;
    expect(order).toEqual(['search 5']);
    // Writes fill their own two slots and a third waits: no search borrows while a write waits.
    searches[1]?.release();
    searches[2]?.release();
    const writes = await Promise.all([admission.enter('write'), admission.enter('write')]);
    const third = admission.enter('write').then((admitted) => (order.push('write 3'), admitted));
    expect(admission.load().search).toMatchObject({ running: 2 });
    const sixth = admission.enter('search').then((admitted) => (order.push('search 6'), admitted));
    await Promise.resolve();
    expect(admission.load().search).toMatchObject({ running: 2, queued: 1 });
    expect(admission.load().write).toMatchObject({ running: 2, queued: 1 });
    // A write ends: its slot goes to the waiting write, not to the search.
    writes[0]?.release();
    await third;
    expect(order).toEqual(['search 5', 'write 3']);
    // A search ends: the waiting search takes its own lane's slot.
    searches[3]?.release();
    await sixth;
    expect(order).toEqual(['search 5', 'write 3', 'search 6']);
    for (const admitted of [await fifth, await third, await sixth, writes[1], read]) admitted?.release();
    expect(admission.load().search).toMatchObject({ running: 0, queued: 0, admitted: 6 });
    expect(admission.load().write).toMatchObject({ running: 0, queued: 0, admitted: 4 });
  });

  it('without sharing, a lane never runs more than its own slots while another idles', async () => {
    const admission = new Admission(limits({ concurrency: 1, maxQueued: 5 }));
    const first = await admission.enter('search');
    const second = admission.enter('search');
    await Promise.resolve();
    expect(admission.load().search).toMatchObject({ running: 1, queued: 1 });
    first.release();
    (await second).release();
  });
});
