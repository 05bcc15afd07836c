/**
 * Worker thread of the built-in extractor (see extraction-thread.ts): loads the NLP libraries once and
 * answers extraction requests one at a time.
 */
import { parentPort } from 'node:worker_threads';
import { extractInThisThread, loadExtractorNlp } from './builtin-extractor.js';

interface ExtractMessage {
  readonly id: number;
  readonly text: string;
  readonly referenceTime: number;
}

if (!parentPort) throw new Error('extract-worker must run in a worker thread');
const port = parentPort;

loadExtractorNlp().then(
  () => port.postMessage({ type: 'ready' }),
  (error: unknown) => port.postMessage({ type: 'fatal', message: String(error) }),
);

port.on('message', (request: ExtractMessage) => {
  void (async () => {
    try {
      const extraction = await extractInThisThread(request.text, request.referenceTime);
      port.postMessage({ type: 'result', id: request.id, extraction });
    } catch (error) {
      port.postMessage({ type: 'error', id: request.id, message: String(error) });
    }
  })();
});
