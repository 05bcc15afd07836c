import type { Worker } from 'node:worker_threads';
import { MemError } from '../../errors.js';
import { l2normalize } from '../embed-many.js';
import type { EmbedderLoad, EmbeddingModel, EmbedOptions } from '../spec.js';
import { spawnWorker } from './worker-spawn.js';

interface PendingText {
  readonly text: string;
  /** When it was queued (performance.now()). */
  readonly queuedAt: number;
  readonly resolve: (vector: Float32Array) => void;
  readonly reject: (error: Error) => void;
}

interface WorkerSlot {
  readonly worker: Worker;
  busy: boolean;
  ready: Promise<void>;
  inFlight: Map<number, PendingText[]>;
  /** Set when the pool retires the worker (idle): its exit is not a failure. */
  retired: boolean;
  idleTimer: NodeJS.Timeout | null;
  /** When the batch in flight was posted (performance.now()). */
  batchStartedAt: number;
  /** The batch in flight is background texts. */
  background: boolean;
}

type WorkerMessage =
  | { type: 'ready' }
  | { type: 'fatal'; message: string }
  | { type: 'error'; id: number; message: string }
  | { type: 'result'; id: number; flat: Float32Array; count: number };

const DIMENSION = 512;
/**
 * Texts per message to a worker. The worker runs each text through the encoder on its own (no padding:
 * use-lite-encoder.ts), so a batch costs the sum of its texts and saves only messages; its size bounds
 * how long a worker is held.
 */
const MAX_BATCH = 32;
/**
 * Background texts go to a worker in smaller batches: a worker cannot be interrupted, so an interactive
 * text that arrives while both workers embed background batches waits for the first to finish. Batches of
 * two did not measurably shorten searches during an ingest (bench/README.md, "Embedding workers: two levers
 * dropped").
 */
const MAX_BACKGROUND_BATCH = 8;
/**
 * For this long after an interactive text arrives, background batches keep off one worker (when there are
 * several), so the next search's query finds a worker free instead of waiting for a background batch to
 * finish, and the core that worker would take is left to the requests.
 */
const INTERACTIVE_RESERVE_MS = 300;
/**
 * Interactive texts that arrive while a worker embeds other interactive ones wait for it and go together,
 * unless this many wait: then a second worker takes them. A lone request never waits: with no interactive
 * batch in flight its text goes at once. A batch no longer costs less per text than its texts one by one,
 * but the core a second worker would take goes to the rest of the requests' work (LanceDB, the main
 * thread): handing every waiting query to a free worker at once served fewer requests per second at 16
 * clients (bench/README.md, "Embedding workers: two levers dropped").
 */
const SPREAD_INTERACTIVE_AT = 8;
/** USE-lite works on sentences and short passages; longer input only costs time. */
const MAX_CHARS = 2000;

/** An extra worker with nothing to do for this long is stopped (each holds ~130 MB: tfjs, WASM heap, weights). */
const DEFAULT_IDLE_MS = 30_000;

export interface BuiltinEmbeddingOptions {
  /** How long an extra worker may sit idle before it is stopped (default 30 s). */
  readonly idleMs?: number;
}

/**
 * The built-in, offline embedder: Universal Sentence Encoder lite (512-d, weights shipped in the npm
 * package) running in worker threads. Concurrent requests are micro-batched: whatever texts are waiting
 * when a worker frees up go to it together, and the worker embeds them one after another.
 *
 * The pool is elastic: one worker runs from init(); more (up to `maxWorkers`) start when texts are left
 * waiting because every worker is busy (bulk imports, concurrent saves), and stop again after `idleMs`
 * without work. A daemon that mostly answers searches keeps one worker's memory, not `maxWorkers`.
 */
export class BuiltinEmbeddingModel implements EmbeddingModel {
  readonly provider = 'builtin';
  readonly modelId = 'builtin/use-lite';
  readonly dimension = DIMENSION;
  readonly maxEmbeddingsPerCall = 256;
  private readonly slots: WorkerSlot[] = [];
  /** Interactive texts are always taken before background ones (see EmbedPriority). */
  private readonly queues: Record<'interactive' | 'background', PendingText[]> = { interactive: [], background: [] };
  private readonly counters = { batches: 0, texts: 0, queuedMs: 0, workingMs: 0 };
  private nextId = 1;
  private closed = false;
  /** Extra workers being started (counted against maxWorkers). */
  private starting = 0;
  private readonly idleMs: number;
  private lastInteractiveAt = Number.NEGATIVE_INFINITY;
  /** Pumps the background queue again when the reserve for interactive texts ends. */
  private reserveTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly maxWorkers: number = 1,
    options: BuiltinEmbeddingOptions = {},
  ) {
    this.idleMs = options.idleMs ?? DEFAULT_IDLE_MS;
  }

  /** Workers running now (1 at rest; up to maxWorkers under load). */
  get workers(): number {
    return this.slots.length;
  }

  async init(): Promise<void> {
    if (this.slots.length > 0) return;
    this.slots.push(await this.startWorker());
  }

  /** Starts one more worker in the background when texts wait and the pool may grow. */
  private grow(): void {
    if (this.closed || this.waiting() === 0 || this.slots.length + this.starting >= this.maxWorkers) return;
    this.starting += 1;
    this.startWorker().then(
      (slot) => {
        this.starting -= 1;
        if (this.closed) {
          slot.retired = true;
          void slot.worker.terminate();
          return;
        }
        this.slots.push(slot);
        this.pump();
        this.idleLater(slot);
      },
      () => {
        // The pool goes on with the workers it has; a later backlog tries again.
        this.starting -= 1;
      },
    );
  }

  /** An extra worker that stays idle for idleMs is stopped; the first one always stays. */
  private idleLater(slot: WorkerSlot): void {
    if (slot.idleTimer) clearTimeout(slot.idleTimer);
    slot.idleTimer = null;
    if (slot.busy || slot === this.slots[0]) return;
    slot.idleTimer = setTimeout(() => {
      slot.idleTimer = null;
      const index = this.slots.indexOf(slot);
      if (slot.busy || index <= 0) return;
      this.slots.splice(index, 1);
      slot.retired = true;
      void slot.worker.terminate();
    }, this.idleMs);
    slot.idleTimer.unref();
  }

  /**
   * tfjs's WASM backend occasionally fails to initialise under heavy CPU load ("Backend 'wasm' has not yet
   * been initialized"); a fresh worker then starts fine, so a failed start is retried before giving up.
   */
  private async startWorker(attempts = 3): Promise<WorkerSlot> {
    for (let attempt = 1; ; attempt++) {
      const slot = this.spawn();
      try {
        await slot.ready;
        return slot;
      } catch (error) {
        await slot.worker.terminate();
        if (attempt >= attempts) throw error;
      }
    }
  }

  private spawn(): WorkerSlot {
    const worker = spawnWorker('embed-worker', import.meta.url);
    const slot: WorkerSlot = { worker, busy: false, ready: Promise.resolve(), inFlight: new Map(), retired: false, idleTimer: null, batchStartedAt: 0, background: false };
    slot.ready = new Promise<void>((resolve, reject) => {
      worker.on('message', (message: WorkerMessage) => {
        if (message.type === 'ready') resolve();
        else if (message.type === 'fatal') reject(new MemError('MODEL_UNAVAILABLE', message.message));
        else this.onResult(slot, message);
      });
      worker.on('error', (error) => {
        reject(error);
        this.failSlot(slot, error);
      });
      worker.on('exit', (code) => {
        if (this.closed || slot.retired) return;
        // A crashed worker leaves the pool (the first one is replaced on the next embed).
        const index = this.slots.indexOf(slot);
        if (index >= 0) this.slots.splice(index, 1);
        this.failSlot(slot, new Error(`embedding worker exited with code ${code}`));
      });
    });
    return slot;
  }

  private failSlot(slot: WorkerSlot, error: Error): void {
    for (const batch of slot.inFlight.values()) for (const item of batch) item.reject(error);
    slot.inFlight.clear();
    slot.busy = false;
    // Texts held for this worker's batch (or the reserve) go to the others, or to a worker started for them.
    if (!this.closed) this.pump();
  }

  private onResult(slot: WorkerSlot, message: Extract<WorkerMessage, { id: number }>): void {
    const batch = slot.inFlight.get(message.id);
    slot.inFlight.delete(message.id);
    slot.busy = false;
    if (batch) {
      const now = performance.now();
      const startedAt = slot.batchStartedAt;
      this.counters.workingMs += (now - startedAt) * batch.length;
      if (message.type === 'error') {
        for (const item of batch) item.reject(new MemError('INTERNAL_ERROR', `Embedding failed: ${message.message}`));
      } else {
        batch.forEach((item, row) => {
          item.resolve(l2normalize(message.flat.slice(row * DIMENSION, (row + 1) * DIMENSION)));
        });
      }
    }
    this.pump();
    this.idleLater(slot);
  }

  private waiting(): number {
    return this.queues.interactive.length + this.queues.background.length;
  }

  /**
   * Whether a free worker may take background texts now: always with one worker, and otherwise unless
   * interactive texts arrived lately and every other worker already embeds background texts.
   */
  private backgroundAllowed(): boolean {
    if (this.slots.length <= 1) return true;
    const remaining = this.lastInteractiveAt + INTERACTIVE_RESERVE_MS - performance.now();
    if (remaining <= 0) return true;
    const background = this.slots.filter((slot) => slot.busy && slot.background).length;
    if (background < this.slots.length - 1) return true;
    if (!this.reserveTimer) {
      this.reserveTimer = setTimeout(() => {
        this.reserveTimer = null;
        this.pump();
      }, remaining + 1);
      this.reserveTimer.unref();
    }
    return false;
  }

  /**
   * What a free worker takes: interactive texts first (a second worker only for a backlog of them), then
   * background texts when none is waiting and the reserve allows; null: nothing, for now.
   */
  private nextKind(): 'interactive' | 'background' | null {
    const waiting = this.queues.interactive.length;
    if (waiting > 0) {
      const busy = this.slots.filter((slot) => slot.busy && !slot.background).length;
      if (busy === 0 || waiting >= SPREAD_INTERACTIVE_AT) return 'interactive';
      return null; // they go together when the batch in flight ends (onResult pumps)
    }
    return this.queues.background.length > 0 && this.backgroundAllowed() ? 'background' : null;
  }

  private pump(): void {
    for (const slot of this.slots) {
      if (this.waiting() === 0) return;
      if (slot.busy) continue;
      const kind = this.nextKind();
      if (!kind) return;
      const batch = kind === 'interactive' ? this.queues.interactive.splice(0, MAX_BATCH) : this.queues.background.splice(0, MAX_BACKGROUND_BATCH);
      slot.background = kind === 'background';
      const id = this.nextId++;
      const now = performance.now();
      for (const item of batch) this.counters.queuedMs += now - item.queuedAt;
      this.counters.batches += 1;
      this.counters.texts += batch.length;
      slot.batchStartedAt = now;
      slot.busy = true;
      if (slot.idleTimer) clearTimeout(slot.idleTimer);
      slot.idleTimer = null;
      slot.inFlight.set(id, batch);
      slot.worker.postMessage({ id, texts: batch.map((item) => item.text) });
    }
    // Texts still waiting: every worker is busy.
    this.grow();
  }

  async doEmbed(texts: readonly string[], options: EmbedOptions = {}): Promise<Float32Array[]> {
    if (this.closed) throw new MemError('MODEL_UNAVAILABLE', 'The built-in embedder is shut down.');
    if (this.slots.length === 0) await this.init();
    const priority = options.priority ?? 'interactive';
    const queue = this.queues[priority];
    const queuedAt = performance.now();
    if (priority === 'interactive') this.lastInteractiveAt = queuedAt;
    const promises = texts.map(
      (text) =>
        new Promise<Float32Array>((resolve, reject) => {
          queue.push({ text: text.slice(0, MAX_CHARS) || ' ', queuedAt, resolve, reject });
        }),
    );
    this.pump();
    return Promise.all(promises);
  }

  /** Workers embedding now, by the priority of their batch. */
  busy(): { readonly interactive: number; readonly background: number } {
    const busy = this.slots.filter((slot) => slot.busy);
    const background = busy.filter((slot) => slot.background).length;
    return { interactive: busy.length - background, background };
  }

  load(): EmbedderLoad {
    return {
      workers: this.slots.length,
      queued: { interactive: this.queues.interactive.length, background: this.queues.background.length },
      ...this.counters,
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.reserveTimer) clearTimeout(this.reserveTimer);
    const error = new MemError('MODEL_UNAVAILABLE', 'The built-in embedder is shut down.');
    for (const item of [...this.queues.interactive.splice(0), ...this.queues.background.splice(0)]) item.reject(error);
    for (const slot of this.slots) if (slot.idleTimer) clearTimeout(slot.idleTimer);
    await Promise.all(this.slots.map((slot) => slot.worker.terminate()));
    this.slots.length = 0;
  }
}
