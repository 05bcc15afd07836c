import type { Worker } from 'node:worker_threads';
import { MemError } from '../../errors.js';
import type { EmbedPriority, Extraction } from '../spec.js';
import { spawnWorker } from './worker-spawn.js';

type ThreadMessage =
  | { type: 'ready' }
  | { type: 'fatal'; message: string }
  | { type: 'result'; id: number; extraction: Extraction }
  | { type: 'error'; id: number; message: string };

interface Pending {
  readonly resolve: (extraction: Extraction) => void;
  readonly reject: (error: Error) => void;
}

interface Waiting extends Pending {
  readonly text: string;
  readonly referenceTime: number;
}

/**
 * Extractions posted to the thread at once. The thread runs them one after another in the order posted, so
 * the rest wait here, where an interactive one can go ahead of background ones; two keep the thread busy
 * while an answer travels back.
 */
const MAX_POSTED = 2;

/**
 * The built-in extractor's worker thread. It starts on the first extraction (or init), runs extractions
 * one after another, and stops after `idleMs` without one: the NLP libraries hold ~110 MB, which a daemon
 * that is only searching does not need, and their CPU work stays off the event loop. A thread that dies
 * fails its extractions in flight (retryable); the next extraction starts a new one.
 */
export class ExtractionThread {
  private worker: Worker | null = null;
  private ready: Promise<void> | null = null;
  private readonly pending = new Map<number, Pending>();
  private readonly waiting: Record<EmbedPriority, Waiting[]> = { interactive: [], background: [] };
  /** Extractions asked for and not answered yet, including those waiting for the thread to start. */
  private active = 0;
  private nextId = 1;
  private idleTimer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(private readonly idleMs: number) {}

  /** Whether the thread is running now. */
  get running(): boolean {
    return this.worker !== null;
  }

  start(): Promise<void> {
    if (this.closed) return Promise.reject(new MemError('MODEL_UNAVAILABLE', 'The built-in extractor is shut down.'));
    if (this.ready) return this.ready;
    const worker = spawnWorker('extract-worker', import.meta.url);
    this.worker = worker;
    const ready = new Promise<void>((resolve, reject) => {
      worker.on('message', (message: ThreadMessage) => {
        if (message.type === 'ready') resolve();
        else if (message.type === 'fatal') {
          const error = new MemError('MODEL_UNAVAILABLE', `The built-in extractor did not start: ${message.message}`);
          reject(error);
          this.lose(worker, error);
          void worker.terminate();
        } else this.settle(message);
      });
      worker.on('error', (error) => {
        reject(error);
        this.lose(worker, error);
      });
      worker.on('exit', (code) => {
        const error = new MemError('MODEL_UNAVAILABLE', `The extraction thread stopped (exit code ${code}).`, {
          details: { retryable: true },
        });
        reject(error);
        this.lose(worker, error);
      });
    });
    this.ready = ready;
    return ready;
  }

  async extract(text: string, referenceTime: number, priority: EmbedPriority = 'interactive'): Promise<Extraction> {
    this.active += 1;
    this.cancelIdle();
    try {
      await this.start();
    } catch (error) {
      this.done();
      throw error;
    }
    if (!this.worker) {
      this.done();
      throw new MemError('MODEL_UNAVAILABLE', 'The extraction thread stopped.', { details: { retryable: true } });
    }
    return new Promise<Extraction>((resolve, reject) => {
      this.waiting[priority].push({ text, referenceTime, resolve, reject });
      this.post();
    });
  }

  /** Posts waiting extractions to the thread, interactive ones first, up to MAX_POSTED in its hands. */
  private post(): void {
    const worker = this.worker;
    while (worker && this.pending.size < MAX_POSTED) {
      const next = this.waiting.interactive.shift() ?? this.waiting.background.shift();
      if (!next) return;
      const id = this.nextId++;
      this.pending.set(id, { resolve: next.resolve, reject: next.reject });
      worker.postMessage({ id, text: next.text, referenceTime: next.referenceTime });
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.cancelIdle();
    const worker = this.worker;
    this.lose(worker, new MemError('MODEL_UNAVAILABLE', 'The built-in extractor is shut down.'));
    await worker?.terminate();
  }

  private settle(message: Extract<ThreadMessage, { id: number }>): void {
    const entry = this.pending.get(message.id);
    if (!entry) return;
    this.pending.delete(message.id);
    if (message.type === 'result') entry.resolve(message.extraction);
    else entry.reject(new MemError('MODEL_UNAVAILABLE', `Built-in extraction failed: ${message.message}`, { details: { retryable: false } }));
    this.done();
    this.post();
  }

  private done(): void {
    this.active -= 1;
    if (this.active === 0) this.idleLater();
  }

  /** Forgets a thread that stopped or failed, and fails what it had in hand. */
  private lose(worker: Worker | null, error: Error): void {
    if (!worker || this.worker !== worker) return;
    this.worker = null;
    this.ready = null;
    const pending = [...this.pending.values(), ...this.waiting.interactive.splice(0), ...this.waiting.background.splice(0)];
    this.pending.clear();
    for (const entry of pending) {
      entry.reject(error);
      this.done();
    }
  }

  private idleLater(): void {
    this.cancelIdle();
    if (this.closed || !this.worker) return;
    this.idleTimer = setTimeout(() => {
      this.idleTimer = null;
      if (this.active > 0 || !this.worker) return;
      const worker = this.worker;
      this.worker = null;
      this.ready = null;
      void worker.terminate();
    }, this.idleMs);
    this.idleTimer.unref();
  }

  private cancelIdle(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
  }
}
