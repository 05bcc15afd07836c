import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { pino } from 'pino';
import { isAlive, readRunFile } from '../src/client/discovery.js';
import { loadConfig } from '../src/config/load-config.js';
import type { ConfigKey } from '../src/config/schema.js';
import { MemError } from '../src/errors.js';
import { VERSION } from '../src/version.js';
import { buildApp } from './app.js';
import { createDeps } from './create-deps.js';
import { fullCollection, IdleCollector } from '../src/jobs/idle-collector.js';

export interface RunDaemonOptions {
  readonly flags?: Partial<Record<ConfigKey, unknown>>;
  /** Print a one-line banner on stderr once listening (foreground `mem serve`). */
  readonly banner?: boolean;
}

export interface RunFile {
  readonly pid: number;
  readonly url: string;
  readonly version: string;
  readonly startedAt: string;
  readonly dataDir: string;
}

/** load config -> create deps -> build app -> listen -> write run file; SIGINT/SIGTERM shut down gracefully. */
export async function runDaemon(options: RunDaemonOptions = {}): Promise<void> {
  process.env.LANCEDB_LOG ??= 'error';
  const loaded = loadConfig({ flags: options.flags ?? {} });
  const { config, paths } = loaded;
  mkdirSync(paths.stateDir, { recursive: true, mode: 0o700 });
  // One writer per data dir (LanceDB is embedded): a second daemon must not open the tables at all.
  const running = readRunFile(paths.runFile);
  if (running && running.pid !== process.pid && isAlive(running.pid)) {
    throw new MemError('VALIDATION_ERROR', `A mem daemon (pid ${running.pid}) is already running on ${running.url} for this data directory.`, {
      hint: 'Use it (`mem daemon status`), or stop it first with `mem daemon stop`.',
    });
  }
  const logger = pino({ level: config['log.level'] }, pino.destination({ dest: paths.logFile, sync: false, mkdir: true, mode: 0o600 }));

  const deps = await createDeps({ loaded, logger });
  const app = await buildApp(deps, {
    logger,
    bodyLimit: config['server.bodyLimitBytes'],
    maxUploadBytes: config['ingest.maxUploadBytes'],
  });
  const collect = fullCollection();
  const idle = collect
    ? new IdleCollector(collect, {
        onCollected: ({ heapUsedBefore, heapUsedAfter, ms }) =>
          logger.debug({ heapUsedBeforeMb: Math.round(heapUsedBefore / 1048576), heapUsedAfterMb: Math.round(heapUsedAfter / 1048576), ms: Math.round(ms) }, 'idle heap collection'),
      })
    : null;
  if (idle) {
    app.addHook('onRequest', async () => idle.activity());
    // The start itself (opening tables, the first maintenance pass) leaves garbage too.
    idle.activity();
  }
  let url: string;
  try {
    await app.listen({ host: config['server.host'], port: config['server.port'] });
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : config['server.port'];
    const host = config['server.host'].includes(':') ? `[${config['server.host']}]` : config['server.host'];
    url = `http://${host}:${port}`;
  } catch (error) {
    await deps.close();
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new MemError('VALIDATION_ERROR', `Port ${config['server.port']} is already in use.`, {
        hint: 'Is a mem daemon already running (`mem daemon status`)? Otherwise pick another port with --port.',
      });
    }
    throw error;
  }
  deps.setAddress(url);
  const runFile: RunFile = {
    pid: process.pid,
    url,
    version: VERSION,
    startedAt: new Date().toISOString(),
    dataDir: paths.dataDir,
  };
  writeFileSync(paths.runFile, `${JSON.stringify(runFile, null, 2)}\n`, { mode: 0o600 });
  writeFileSync(paths.pidFile, `${process.pid}\n`, { mode: 0o600 });
  logger.info({ url, version: VERSION, embedder: deps.embedder.modelId, dataDir: paths.dataDir }, 'daemon listening');
  if (options.banner) {
    process.stderr.write(
      `mem ${VERSION} listening on ${url}\n  data      ${paths.dataDir}\n  embedder  ${deps.embedder.modelId} (${deps.embedder.dimension}-d)\n  logs      ${paths.logFile}\n` +
        (deps.firstKey ? `  first API key created and stored for the CLI (print it with: mem token)\n` : ''),
    );
  }

  const maintenance = setInterval(() => {
    deps.storage
      .maintain()
      .then((report) => {
        logger.info({ report }, 'table maintenance');
        idle?.activity();
      })
      .catch((error: unknown) => logger.warn({ err: error }, 'table maintenance failed'));
  }, config['maintenance.intervalMs']);
  maintenance.unref();

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    clearInterval(maintenance);
    idle?.close();
    const force = setTimeout(() => process.exit(1), 15_000);
    force.unref();
    try {
      await app.close();
      await deps.close();
    } finally {
      rmSync(paths.runFile, { force: true });
      rmSync(paths.pidFile, { force: true });
      logger.info('stopped');
      logger.flush();
      if (options.banner) process.stderr.write('mem daemon stopped\n');
      process.exit(0);
    }
  };
  // `on`, not `once`: a repeated signal (Ctrl-C reaches a `mem serve` and the child it runs) must not
  // kill the process halfway through its graceful shutdown.
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}
