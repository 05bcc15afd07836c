import { hostname } from 'node:os';
import type { WatchRecord } from '../types.js';
import type { Claim, Leases } from './leases.js';

/** What the coordinator needs of the daemon's folder watches (WatchService). */
export interface WatchRunner {
  /** Follows a watch and catches up with what changed in its folder meanwhile (its first scan if it had none). */
  adopt(record: WatchRecord): Promise<void>;
  /** Stops following a watch here; the watch and its memories stay. */
  drop(id: string): Promise<void>;
}

/** How a watch this daemon does not follow stands (GET /v1/watches on it). */
export interface RemoteWatchState {
  readonly state: 'elsewhere' | 'starting' | 'failed';
  readonly lastError: string | null;
}

/** The part of WatchService's work that the coordinator decides on a shared store. */
export interface WatchCluster {
  /** Takes the lease of a watch this daemon is about to follow; false when another daemon follows it. */
  hold(record: WatchRecord): Promise<boolean>;
  /** This daemon no longer follows the watch (removed): its lease goes. */
  release(id: string): void;
  describe(record: WatchRecord): Promise<RemoteWatchState>;
}

export interface WatchCoordinatorDeps {
  /** Every account's watches: the list is in the store, so a watch added through one daemon is seen by all. */
  readonly watches: () => Promise<readonly WatchRecord[]>;
  readonly leases: Leases;
  readonly runner: WatchRunner;
  /** Whether this host can read the folder (a local folder is seen by one machine only). */
  readonly readable: (path: string) => Promise<boolean>;
  readonly onError?: (error: unknown, context: Record<string, unknown>) => void;
}

/**
 * Folder watches of several daemons on one store. The watch list is shared; each watch is followed by one
 * daemon at a time, the one holding its lease (`watch:<id>`), and only by a daemon whose host can read the
 * folder: a folder on one laptop is followed by the daemon on that laptop, a folder on a disk every host
 * mounts by any one of them. A daemon that dies leaves its lease to expire; the next sweep of another daemon
 * that can read the folder takes the watch over and catches up with what changed meanwhile.
 */
export class WatchCoordinator implements WatchCluster {
  private readonly claims = new Map<string, Claim>();
  private sweeping: Promise<void> | null = null;
  private closed = false;

  constructor(private readonly deps: WatchCoordinatorDeps) {}

  async hold(record: WatchRecord): Promise<boolean> {
    if (this.claims.has(record.id)) return true;
    const claim = await this.deps.leases.claim(`watch:${record.id}`);
    if (!claim) return false;
    this.claims.set(record.id, claim);
    // Lost (this daemon stalled past its lease and another took the watch over): stop following it here.
    claim.signal.addEventListener('abort', () => {
      if (this.claims.get(record.id) !== claim) return;
      this.claims.delete(record.id);
      void this.deps.runner.drop(record.id).catch((error: unknown) => this.deps.onError?.(error, { watchId: record.id }));
    });
    return true;
  }

  release(id: string): void {
    this.claims.get(id)?.stop();
    this.claims.delete(id);
  }

  async describe(record: WatchRecord): Promise<RemoteWatchState> {
    if (await this.deps.leases.heldElsewhere(`watch:${record.id}`)) return { state: 'elsewhere', lastError: null };
    if (await this.deps.readable(record.path)) return { state: 'starting', lastError: null };
    return {
      state: 'failed',
      lastError: `No daemon follows it: ${record.path} cannot be read on this host (${hostname()}), and no daemon that can read it is running.`,
    };
  }

  /** Follows the watches no daemon follows that this host can read; gives up those it no longer should. */
  sweep(): Promise<void> {
    this.sweeping ??= this.runSweep().finally(() => (this.sweeping = null));
    return this.sweeping;
  }

  /** Stops renewing every lease (shutdown): they expire, and other daemons take the watches over. */
  close(): void {
    this.closed = true;
    for (const claim of this.claims.values()) claim.stop();
    this.claims.clear();
  }

  private async runSweep(): Promise<void> {
    const records = await this.deps.watches();
    const present = new Set(records.map((record) => record.id));
    for (const id of [...this.claims.keys()]) {
      // Removed through another daemon.
      if (!present.has(id)) await this.giveUp(id);
    }
    for (const record of records) {
      if (this.closed) return;
      const readable = await this.deps.readable(record.path);
      if (this.claims.has(record.id)) {
        // The folder went away here (an unmounted disk): let a daemon that can read it take the watch.
        if (!readable) await this.giveUp(record.id);
        continue;
      }
      if (!readable || !(await this.hold(record))) continue;
      try {
        await this.deps.runner.adopt(record);
      } catch (error) {
        this.deps.onError?.(error, { watchId: record.id, path: record.path });
        await this.giveUp(record.id);
      }
    }
  }

  private async giveUp(id: string): Promise<void> {
    this.release(id);
    await this.deps.runner.drop(id);
  }
}
