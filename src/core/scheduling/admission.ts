import { MemError } from '../../errors.js';

/**
 * Kinds of request that share a limit. A cheap read (get, list, query, entities) must never wait behind a
 * search (a query embedding and a vector scan) or a write (embedding, extraction, a commit), so each kind has
 * its own lane: its own slots and its own queue.
 */
export const LANES = ['read', 'search', 'write', 'bulk'] as const;
export type Lane = (typeof LANES)[number];

export interface LaneLimits {
  /** Requests of the lane that run at once; more wait in the lane's queue, in order of arrival. */
  readonly concurrency: number;
  /** Requests that may wait; one more is refused at once with 429 RATE_LIMITED and a Retry-After. */
  readonly maxQueued: number;
}

export interface LaneLoad {
  readonly running: number;
  readonly queued: number;
  /** The lane's limits: requests that run at once, and that may wait. */
  readonly concurrency: number;
  readonly maxQueued: number;
  readonly admitted: number;
  readonly rejected: number;
}

/** A request's place in its lane: how long it waited, and the release to call once it has answered. */
export interface Admitted {
  readonly queuedMs: number;
  release(): void;
}

interface Waiter {
  readonly at: number;
  readonly resolve: (admitted: Admitted) => void;
}

interface LaneState {
  readonly limits: LaneLimits;
  /** The lanes that lend each other idle slots, this one among them (itself alone when it shares with none). */
  group: readonly LaneState[];
  running: number;
  readonly waiting: Waiter[];
  admitted: number;
  rejected: number;
  /** Mean time a request holds a slot (ms), smoothed: what a Retry-After is estimated from. */
  meanHoldMs: number;
}

/** Weight of the newest hold time in the running mean. */
const SMOOTHING = 0.05;

/**
 * Admission control for the daemon's requests: per lane `concurrency` run on its own slots, at most `maxQueued` wait
 * (first come, first served), and the rest are refused at once with 429 RATE_LIMITED and a Retry-After
 * estimated from the queue and the lane's recent pace, so an overloaded daemon answers "later" in
 * milliseconds instead of letting a queue, and every latency, grow without bound.
 *
 * Lanes that share (`sharing`, e.g. searches and writes) lend each other the slots they leave idle: a lane
 * whose own slots are taken may run one more while the group runs fewer than its slots together and no other
 * lane of it has a request waiting. A lane's own slots stay its own: a request of it starts at once on one,
 * even while another lane runs on it (the group then runs more than its slots until those end), and nobody
 * borrows while it has requests waiting. So a flood of one kind never delays the other, and neither idles
 * while the other waits.
 */
export class Admission {
  private readonly lanes: Record<Lane, LaneState>;

  constructor(
    limits: Readonly<Record<Lane, LaneLimits>>,
    private readonly now: () => number = () => performance.now(),
    sharing: readonly (readonly Lane[])[] = [],
  ) {
    const state = (lane: Lane): LaneState => ({ limits: limits[lane], group: [], running: 0, waiting: [], admitted: 0, rejected: 0, meanHoldMs: 50 });
    this.lanes = { read: state('read'), search: state('search'), write: state('write'), bulk: state('bulk') };
    for (const lane of LANES) this.lanes[lane].group = (sharing.find((group) => group.includes(lane)) ?? [lane]).map((member) => this.lanes[member]);
  }

  /** Resolves when the request may run; throws RATE_LIMITED when the lane's queue is full. */
  enter(lane: Lane): Promise<Admitted> {
    const state = this.lanes[lane];
    const at = this.now();
    if (state.waiting.length === 0 && (state.running < state.limits.concurrency || this.mayBorrow(state))) return Promise.resolve(this.start(state, at));
    if (state.waiting.length >= state.limits.maxQueued) {
      state.rejected += 1;
      const retryAfter = Math.max(1, Math.ceil(((state.waiting.length + state.running) * state.meanHoldMs) / state.limits.concurrency / 1000));
      return Promise.reject(new MemError('RATE_LIMITED', 'Rate limit exceeded', {
        extra: { retryAfter },
        details: { reason: 'busy', lane, queued: state.waiting.length },
        hint: `The daemon is busy (${state.waiting.length} ${lane} requests waiting); retry in ${retryAfter} s.`,
      }));
    }
    return new Promise<Admitted>((resolve) => state.waiting.push({ at, resolve }));
  }

  load(): Record<Lane, LaneLoad> {
    const view = (state: LaneState): LaneLoad => ({
      running: state.running,
      queued: state.waiting.length,
      concurrency: state.limits.concurrency,
      maxQueued: state.limits.maxQueued,
      admitted: state.admitted,
      rejected: state.rejected,
    });
    return { read: view(this.lanes.read), search: view(this.lanes.search), write: view(this.lanes.write), bulk: view(this.lanes.bulk) };
  }

  /** A slot another lane of the group leaves idle, with nobody of that lane waiting for it. */
  private mayBorrow(state: LaneState): boolean {
    return state.group.length > 1 && state.group.every((member) => member === state || member.waiting.length === 0) && hasIdleSlot(state.group);
  }

  /**
   * A slot of this group is free: its waiting requests take it, first those of a lane below its own slots
   * (the oldest such request), then, while the group runs fewer than its slots, one that borrows (the oldest
   * of all), until none can start.
   */
  private dispatch(group: readonly LaneState[]): void {
    for (;;) {
      const next =
        oldestWaiting(group.filter((member) => member.running < member.limits.concurrency)) ??
        (group.length > 1 && hasIdleSlot(group) ? oldestWaiting(group) : undefined);
      const waiter = next?.waiting.shift();
      if (!next || !waiter) return;
      waiter.resolve(this.start(next, waiter.at));
    }
  }

  private start(state: LaneState, queuedAt: number): Admitted {
    state.running += 1;
    state.admitted += 1;
    const startedAt = this.now();
    let released = false;
    return {
      queuedMs: startedAt - queuedAt,
      release: () => {
        // Idempotent: a response and an aborted connection may both report the end of one request.
        if (released) return;
        released = true;
        state.meanHoldMs += SMOOTHING * (this.now() - startedAt - state.meanHoldMs);
        state.running -= 1;
        this.dispatch(state.group);
      },
    };
  }
}

/** The group runs fewer requests than its lanes' slots together. */
function hasIdleSlot(group: readonly LaneState[]): boolean {
  let running = 0;
  let slots = 0;
  for (const member of group) {
    running += member.running;
    slots += member.limits.concurrency;
  }
  return running < slots;
}

/** The lane whose first waiting request arrived first, if any waits. */
function oldestWaiting(lanes: readonly LaneState[]): LaneState | undefined {
  let oldest: LaneState | undefined;
  for (const lane of lanes) {
    const head = lane.waiting[0];
    if (head && (!oldest || head.at < (oldest.waiting[0]?.at ?? Infinity))) oldest = lane;
  }
  return oldest;
}
