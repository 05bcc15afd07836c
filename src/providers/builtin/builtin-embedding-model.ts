import { Worker } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { MemError } from '../../errors.js';
import { l2normalize } from '../embed-many.js';
import type { EmbeddingModel } from '../spec.js';

interface PendingText {
  readonly text: string;
  readonly resolve: (vector: Float32Array) => void;
  readonly reject: (error: Error) => void;
}

interface WorkerSlot {
  readonly worker: Worker;
  busy: boolean;
  ready: Promise<void>;
  inFlight: Map<number, PendingText[]>;
}

type WorkerMessage =
  | { type: 'ready' }
  | { type: 'fatal'; message: string }
  | { type: 'error'; id: number; message: string }
  | { type: 'result'; id: number; flat: Float32Array; count: number };

const DIMENSION = 512;
/** Batches of 8-32 run at ~90-95 sentences/s on one core, versus ~38/s one at a time (STACK.md). */
const MAX_BATCH = 32;
/** USE-lite works on sentences and short passages; longer input only costs time. */
const MAX_CHARS = 2000;

/**
 * The built-in, offline embedder: Universal Sentence Encoder lite (512-d, weights shipped in the npm
 * package) running in worker threads. Concurrent requests are micro-batched: whatever texts are waiting
 * when a worker frees up go to it together.
 */
export class BuiltinEmbeddingModel implements EmbeddingModel {
  readonly provider = 'builtin';
  readonly modelId = 'builtin/use-lite';
  readonly dimension = DIMENSION;
  readonly maxEmbeddingsPerCall = 256;
  private readonly slots: WorkerSlot[] = [];
  private readonly queue: PendingText[] = [];
  private nextId = 1;
  private closed = false;

  constructor(private readonly workerCount: number = 1) {}

  async init(): Promise<void> {
    if (this.slots.length > 0) return;
    for (let i = 0; i < this.workerCount; i++) this.slots.push(await this.startWorker());
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
    const self = fileURLToPath(import.meta.url);
    const fromSource = self.endsWith('.ts');
    // Under vitest/tsx the source runs as .ts: the worker needs tsx to load its TypeScript too.
    const workerUrl = new URL(fromSource ? './embed-worker.ts' : './embed-worker.js', import.meta.url);
    const worker = fromSource
      ? new Worker(
          `import('tsx/esm/api').then((api) => { api.register(); return import(${JSON.stringify(workerUrl.href)}); });`,
          { eval: true },
        )
      : new Worker(workerUrl);
    worker.unref();
    const slot: WorkerSlot = { worker, busy: false, ready: Promise.resolve(), inFlight: new Map() };
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
        if (!this.closed) this.failSlot(slot, new Error(`embedding worker exited with code ${code}`));
      });
    });
    return slot;
  }

  private failSlot(slot: WorkerSlot, error: Error): void {
    for (const batch of slot.inFlight.values()) for (const item of batch) item.reject(error);
    slot.inFlight.clear();
    slot.busy = false;
  }

  private onResult(slot: WorkerSlot, message: Extract<WorkerMessage, { id: number }>): void {
    const batch = slot.inFlight.get(message.id);
    slot.inFlight.delete(message.id);
    slot.busy = false;
    if (batch) {
      if (message.type === 'error') {
        for (const item of batch) item.reject(new MemError('INTERNAL_ERROR', `Embedding failed: ${message.message}`));
      } else {
        batch.forEach((item, row) => {
          item.resolve(l2normalize(message.flat.slice(row * DIMENSION, (row + 1) * DIMENSION)));
        });
      }
    }
    this.pump();
  }

  private pump(): void {
    for (const slot of this.slots) {
      if (this.queue.length === 0) return;
      if (slot.busy) continue;
      const batch = this.queue.splice(0, MAX_BATCH);
      const id = this.nextId++;
      slot.busy = true;
      slot.inFlight.set(id, batch);
      slot.worker.postMessage({ id, texts: batch.map((item) => item.text) });
    }
  }

  async doEmbed(texts: readonly string[]): Promise<Float32Array[]> {
    if (this.closed) throw new MemError('MODEL_UNAVAILABLE', 'The built-in embedder is shut down.');
    if (this.slots.length === 0) await this.init();
    const promises = texts.map(
      (text) =>
        new Promise<Float32Array>((resolve, reject) => {
          this.queue.push({ text: text.slice(0, MAX_CHARS) || ' ', resolve, reject });
        }),
    );
    this.pump();
    return Promise.all(promises);
  }

  async close(): Promise<void> {
    this.closed = true;
    const error = new MemError('MODEL_UNAVAILABLE', 'The built-in embedder is shut down.');
    for (const item of this.queue.splice(0)) item.reject(error);
    await Promise.all(this.slots.map((slot) => slot.worker.terminate()));
    this.slots.length = 0;
  }
}
