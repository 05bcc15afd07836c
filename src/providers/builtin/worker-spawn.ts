import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

/**
 * Starts the worker module `name` (without extension) that sits next to the module at `moduleUrl`. Built,
 * that is `name.js`; under vitest or tsx the sources run as .ts, and the worker registers tsx before it
 * imports its TypeScript. The worker never keeps the process alive on its own.
 */
export function spawnWorker(name: string, moduleUrl: string): Worker {
  const fromSource = fileURLToPath(moduleUrl).endsWith('.ts');
  const workerUrl = new URL(`./${name}.${fromSource ? 'ts' : 'js'}`, moduleUrl);
  const worker = fromSource
    ? new Worker(`import('tsx/esm/api').then((api) => { api.register(); return import(${JSON.stringify(workerUrl.href)}); });`, {
        eval: true,
      })
    : new Worker(workerUrl);
  worker.unref();
  running.set(worker, name);
  worker.once('exit', () => running.delete(worker));
  return worker;
}

const running = new Map<Worker, string>();

/** The worker threads running now, by module name (GET /v1/status reports each kind's busy share). */
export function runningWorkers(): { readonly name: string; readonly worker: Worker }[] {
  return [...running].map(([worker, name]) => ({ name, worker }));
}
