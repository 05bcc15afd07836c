import { constants, mkdirSync, readFileSync } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import type { SearchTablesLoad } from '../src/core/ports.js';
import { SaveService } from '../src/core/save-service.js';
import type { Logger } from 'pino';
import { MemError } from '../src/errors.js';
import type { LoadedConfig } from '../src/config/load-config.js';
import { writeApiKey } from '../src/config/credentials.js';
import { AccountService } from '../src/core/accounts/account-service.js';
import { parseSearchModel, type SearchModel } from '../src/core/search/model.js';
import { PLANS, type PlanTable } from '../src/core/accounts/plans.js';
import { RateLimiter } from '../src/core/accounts/rate-limiter.js';
import { tenantsOf } from '../src/core/accounts/tenancy.js';
import { UsageRecorder } from '../src/core/accounts/usage-recorder.js';
import { DocumentSaves } from '../src/core/ingest/document-saves.js';
import { IngestService } from '../src/core/ingest/ingest-service.js';
import { createDocumentSource, createWebhookSender } from '../src/ingest/document-source.js';
import { AskService } from '../src/core/answers/ask-service.js';
import { RemindService } from '../src/core/answers/remind-service.js';
import { TurboService } from '../src/core/answers/turbo-service.js';
import { AsyncSaves } from '../src/core/async-saves.js';
import { AuthService } from '../src/core/auth-service.js';
import { ANSWER_PARAMETERS } from '../src/core/answers/answer-parameters.js';
import { KnowledgeService } from '../src/core/knowledge/knowledge-service.js';
import { MemoryService } from '../src/core/memory-service.js';
import { QueryService } from '../src/core/query-service.js';
import { Reindexer } from '../src/core/reindex.js';
import { JobQueue } from '../src/jobs/job-queue.js';
import { BuiltinEmbeddingModel } from '../src/providers/builtin/builtin-embedding-model.js';
import { BuiltinExtractor } from '../src/providers/builtin/builtin-extractor.js';
import { OllamaExtractor } from '../src/providers/ollama/ollama-extractor.js';
import { BuiltinLanguageModel } from '../src/providers/builtin/builtin-language-model.js';
import { FallbackLanguageModel } from '../src/providers/fallback-language-model.js';
import { OllamaLanguageModel } from '../src/providers/ollama/ollama-language-model.js';
import { checkOllama, OllamaEmbeddingModel } from '../src/providers/ollama/ollama-embedding-model.js';
import type { EmbeddingModel, LanguageModel } from '../src/providers/spec.js';
import { openLanceStore } from '../src/store/lancedb/lancedb-store.js';
import { WatchedFiles } from '../src/core/watch/watched-files.js';
import { WatchService } from '../src/core/watch/watch-service.js';
import { createChokidarWatching } from '../src/watch/chokidar-watching.js';
import { BackupService } from '../src/core/export/backup-service.js';
import { ExportService } from '../src/core/export/export-service.js';
import { ImportService } from '../src/core/export/import-service.js';
import { VERSION } from '../src/version.js';
import { storageLocation, type StorageLocation } from '../src/store/location.js';
import { probeConditionalCommits } from '../src/store/lancedb/commit-probe.js';
import { LocalLeases, StoreLeases } from '../src/core/cluster/leases.js';
import { WatchCoordinator } from '../src/core/cluster/watch-coordinator.js';
import type { AppDeps } from './deps.js';
import { Admission, type Lane, type LaneLimits } from '../src/core/scheduling/admission.js';
import { BackgroundPace } from '../src/core/scheduling/background-pace.js';
import { RequestTimings } from '../src/core/scheduling/request-timings.js';
import { LoadMonitor } from './load-monitor.js';

/** GET /v1/status reports the load of this many recent seconds. */
const LOAD_WINDOW_SECONDS = 10;

/**
 * Requests per lane that run at once and that may wait (see Admission), per core. A search or a save is CPU
 * work on every thread kind (the main thread, the embedding workers, LanceDB's pool): past a few per core,
 * more at once only interleave that work, and each costs more CPU (LanceDB's part most), so the daemon
 * serves fewer. Two searches and two writes per core, four reads (cheap, mostly waiting on LanceDB), served
 * more per second than sixteen of each and than half as many, at 16 and at 64 clients (measured on 2 cores:
 * bench/README.md, "Lanes per core").
 */
function admissionLimits(cores: number): Readonly<Record<Lane, LaneLimits>> {
  return {
    read: { concurrency: 4 * cores, maxQueued: 1024 },
    search: { concurrency: 2 * cores, maxQueued: 512 },
    write: { concurrency: 2 * cores, maxQueued: 512 },
    bulk: { concurrency: 2, maxQueued: 32 },
  };
}

/**
 * Searches and writes lend each other the slots they leave idle (see Admission): under many clients the
 * searches no longer wait while write slots idle, and a flood of either still leaves the other its own
 * slots (bench/README.md, issue #23, "Searches and writes lend each other idle slots").
 */
const SHARING_LANES: readonly (readonly Lane[])[] = [['search', 'write']];

const EMPTY_EMBEDDER_LOAD = { workers: 0, queued: { interactive: 0, background: 0 }, batches: 0, texts: 0, queuedMs: 0, workingMs: 0 };
const EMPTY_SEARCH_TABLES_LOAD: SearchTablesLoad = { pendingCommits: 0, compactions: 0, compactionMs: 0, vectorIndexParts: null, pendingPassages: null };

export interface CreateDepsOptions {
  readonly loaded: LoadedConfig;
  readonly logger?: Logger;
  /** Stores the owner's first key for the CLI (off in tests that manage keys themselves). */
  readonly storeFirstKey?: boolean;
  /** Pre-built embedder (tests share one across apps to save start-up time). */
  readonly embedder?: EmbeddingModel;
  /** Plan limits (tests shrink them to reach a limit quickly); the spec's table by default. */
  readonly plans?: PlanTable;
  /** Lanes' slots and queues (tests shrink them to fill a lane); admissionLimits() by default. */
  readonly admissionLimits?: Readonly<Record<Lane, LaneLimits>>;
}

export interface CreatedDeps extends AppDeps {
  /** The owner's first key when this start created it (shown to tests; never logged). */
  readonly firstKey: string | null;
  readonly ownerId: string;
  setAddress(address: string): void;
}

/** How often a daemon on a shared store reads the request counts the other daemons recorded. */
const RATE_SYNC_MS = 2000;

/** The composition root: the only place real adapters are constructed. */
function readSearchModel(file: string): SearchModel | undefined {
  if (!file) return undefined;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new MemError('VALIDATION_ERROR', `search.modelFile ${file} cannot be read: ${(error as Error).message}`, {
      hint: 'Point search.modelFile at a model file (bench/fit-search.ts writes them), or set it to "" for the built-in model.',
    });
  }
  return parseSearchModel(text, `search.modelFile ${file}`);
}

/**
 * Several daemons on a store without conditional writes would overwrite each other's commits silently, so
 * the store proves it rejects a second create-if-absent before this daemon accepts a write.
 */
async function refuseUnsafeStore(location: StorageLocation, allowUnsafe: boolean, logger: Logger | undefined): Promise<{ safe: boolean; ms: number }> {
  let probe;
  try {
    probe = await probeConditionalCommits(location.uri, location.options);
  } catch (error) {
    throw new MemError('VALIDATION_ERROR', `The store ${location.display} cannot be reached or written: ${(error as Error).message}`, {
      hint: 'Check the URI, the container or bucket (it must exist), and the credentials (the cloud\'s standard variables or storage.options).',
    });
  }
  logger?.info({ store: location.display, ...probe }, 'storage commit probe');
  if (probe.safe) return { safe: true, ms: probe.ms };
  if (allowUnsafe) {
    logger?.warn({ store: location.display }, 'the store accepts a second create-if-absent; running anyway (storage.allowUnsafe): run only ONE daemon on it');
    return { safe: false, ms: probe.ms };
  }
  throw new MemError('VALIDATION_ERROR', `The store ${location.display} accepted a second create-if-absent of the same object (${probe.expected - probe.found} of ${probe.expected} racing test commits were lost): it has no conditional writes, so several daemons on it would lose writes silently.`, {
    hint: 'Use a store with conditional writes (Azure Blob, S3, GCS). To run a single daemon on this one on purpose, set storage.allowUnsafe=true (MEM_STORAGE_ALLOW_UNSAFE=1).',
  });
}

/** Whether this host can read a watched folder (several daemons: a watch goes to one that can). */
async function readableDirectory(path: string): Promise<boolean> {
  try {
    await access(path, constants.R_OK | constants.X_OK);
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

export async function createDeps(options: CreateDepsOptions): Promise<CreatedDeps> {
  const { config, paths, storageUri } = options.loaded;
  mkdirSync(paths.dataDir, { recursive: true, mode: 0o700 });
  mkdirSync(paths.stateDir, { recursive: true, mode: 0o700 });

  // Read before anything is opened: a bad file stops the start with nothing to clean up.
  const searchModel = readSearchModel(config['search.modelFile']);

  const ownsEmbedder = !options.embedder;
  const embedder: EmbeddingModel =
    options.embedder ??
    (config['embedding.provider'] === 'ollama'
      ? new OllamaEmbeddingModel({
          host: config['ollama.host'],
          model: config['ollama.embedModel'],
          timeoutMs: config['ollama.timeoutMs'],
        })
      : new BuiltinEmbeddingModel(config['embedding.workers']));
  await embedder.init();

  const location = storageLocation(storageUri, config['storage.options']);
  const commitProbe = location.shared ? await refuseUnsafeStore(location, config['storage.allowUnsafe'], options.logger) : null;
  const storage = await openLanceStore({
    uri: location.uri,
    storageOptions: location.options,
    ...(location.shared ? { shared: { readConsistencyMs: config['storage.readConsistencyMs'] } } : {}),
    vectorSpace: { modelId: embedder.modelId, dimension: embedder.dimension },
    cacheMb: { index: config['storage.indexCacheMb'], metadata: config['storage.metadataCacheMb'] },
    onMaintenanceError: (error) => options.logger?.warn({ err: error }, 'background table maintenance failed'),
    onSearchTablesCompacted: (report) => options.logger?.debug({ compaction: report }, 'search tables compacted'),
    onMaintained: (report) => options.logger?.debug({ report }, 'background table maintenance'),
  });
  const leases = location.shared
    ? new StoreLeases({
        store: storage.leaseStore,
        leaseMs: config['cluster.leaseMs'],
        onError: (error, name) => options.logger?.warn({ err: error, lease: name }, 'a lease could not be renewed'),
      })
    : new LocalLeases();
  storage.useLeases(leases);
  const extractor =
    config['extraction.provider'] === 'ollama'
      ? new OllamaExtractor({ host: config['ollama.host'], model: config['ollama.extractModel'], timeoutMs: config['ollama.timeoutMs'] })
      : new BuiltinExtractor({ thread: true });
  // Its own queue: slow model extractions never hold up async saves or reindexing.
  const extractionQueue = new JobQueue(1);
  const knowledge = new KnowledgeService({
    storage,
    extractor,
    queue: extractionQueue,
    ...(location.shared ? { leases } : {}),
    onError: (error, context) => options.logger?.warn({ err: error, ...context }, 'entity and fact extraction failed'),
  });
  const memories = new MemoryService({ storage, embedder, knowledge, searchModel });
  memories.prepareSearch();
  const query = new QueryService({ storage, memories });
  // Other daemons may regenerate or delete a key: a cached key is checked against the store again after
  // the read-consistency bound (one daemon alone evicts its cache itself on every change).
  const auth = new AuthService(
    storage,
    Date.now,
    location.shared ? { cacheMs: config['storage.readConsistencyMs'], leases, readConsistencyMs: config['storage.readConsistencyMs'] } : {},
  );
  const plans = options.plans ?? PLANS;
  // Other daemons admit requests of the same accounts: their counts are folded in every two seconds.
  const limiter = new RateLimiter(storage.usage, plans, Date.now, location.shared ? { syncMs: RATE_SYNC_MS } : {});
  const recorder = new UsageRecorder(storage.usage, (error) => options.logger?.warn({ err: error }, 'could not record usage'));
  const accounts = new AccountService({ storage, auth, limiter, recorder, plans });
  const queue = new JobQueue(2);
  const asyncSaves = new AsyncSaves(storage, memories, queue, Date.now, leases);
  const reindexer = new Reindexer(storage, memories, queue, Date.now, leases);
  // With Ollama configured but not running, the built-in answerer answers (and the response says so).
  const answerer: LanguageModel =
    config['answer.provider'] === 'ollama'
      ? new FallbackLanguageModel(
          new OllamaLanguageModel({
          host: config['ollama.host'],
          models: {
            fast: config['ollama.chatModel.fast'],
            default: config['ollama.chatModel.default'],
            smart: config['ollama.chatModel.smart'],
          },
          timeoutMs: config['ollama.timeoutMs'],
          }),
          new BuiltinLanguageModel(embedder, ANSWER_PARAMETERS.rules),
        )
      : new BuiltinLanguageModel(embedder, ANSWER_PARAMETERS.rules);
  const asker = new AskService(memories, answerer, knowledge);
  const reminder = new RemindService(memories);
  const turbo = new TurboService(memories, asker);

  const allowPrivateNetworks = config['network.allowPrivateNetworks'];
  const documentSource = createDocumentSource({
    timeoutMs: config['ingest.fetchTimeoutMs'],
    maxBytes: config['ingest.maxFetchBytes'],
    maxRedirects: config['ingest.maxRedirects'],
    allowPrivateNetworks,
  });
  const documents = new DocumentSaves(storage, memories);
  const watchedFiles = new WatchedFiles({
    storage,
    memories,
    documents,
    source: documentSource,
    maxBytes: config['ingest.maxUploadBytes'],
  });
  const pace = new BackgroundPace();
  const ingest = new IngestService({
    storage,
    memories,
    documents,
    source: documentSource,
    webhooks: createWebhookSender({ allowPrivateNetworks }),
    plans,
    webhookSecret: (accountId) => accounts.webhookSecret(accountId),
    itemConcurrency: config['ingest.concurrency'],
    files: watchedFiles,
    leases,
    sharedStore: location.shared,
    pace,
    onError: (error, context) => options.logger?.warn({ err: error, ...context }, 'ingest job failed'),
  });

  const { account, firstKey } = await auth.bootstrap();
  if (firstKey && options.storeFirstKey !== false) {
    const where = await writeApiKey(paths, firstKey);
    options.logger?.info({ store: where }, 'created the owner account and its first API key');
  }
  const resumedExtractions = await knowledge.resume((await storage.accounts.list()).flatMap((entry) => tenantsOf(entry.id)));
  if (resumedExtractions > 0) options.logger?.info({ resumed: resumedExtractions }, 'resumed unfinished extractions');
  const resumed = await asyncSaves.resume();
  await reindexer.resume();
  const resumedIngest = await ingest.resume();
  if (resumedIngest > 0) options.logger?.info({ resumed: resumedIngest }, 'resumed unfinished ingest jobs');
  // Work of a daemon that died is taken over once its lease expires: look for it twice per lease.
  const adoption = location.shared
    ? setInterval(() => {
        // Only a background extractor (Ollama) leaves extractions to take over; inline ones finish in the save.
        const extractions = extractor.inline
          ? null
          : storage.accounts.list().then((accounts) => knowledge.resume(accounts.flatMap((entry) => tenantsOf(entry.id))));
        Promise.all([ingest.resume(), asyncSaves.resume(), reindexer.resume(), extractions, watchCoordinator?.sweep()]).catch((error: unknown) =>
          options.logger?.warn({ err: error }, 'looking for unfinished background work failed'),
        );
      }, Math.max(500, Math.floor(config['cluster.leaseMs'] / 2)))
    : null;
  adoption?.unref();
  if (resumed > 0) options.logger?.info({ resumed }, 'resumed unfinished async saves');
  // Several daemons on one store: each watch is followed by one daemon whose host can read its folder.
  const watchCoordinator: WatchCoordinator | null = location.shared
    ? new WatchCoordinator({
        watches: () => storage.watches.all(),
        leases,
        runner: { adopt: (record): Promise<void> => watches.adopt(record), drop: (id): Promise<void> => watches.drop(id) },
        readable: readableDirectory,
        onError: (error, context) => options.logger?.warn({ err: error, ...context }, 'folder watch could not be taken over'),
      })
    : null;
  const watches: WatchService = new WatchService({
    storage,
    files: watchedFiles,
    submit: (tenant, items) => ingest.submit(tenant, items, {}),
    watching: createChokidarWatching(),
    maxBytes: config['ingest.maxUploadBytes'],
    onError: (error, context) => options.logger?.warn({ err: error, ...context }, 'folder watch: a file could not be handled'),
    ...(watchCoordinator ? { cluster: watchCoordinator } : {}),
  });
  // In the background: following large folders again must not hold up the daemon's start.
  void (watchCoordinator ? watchCoordinator.sweep() : watches.start()).catch((error: unknown) =>
    options.logger?.warn({ err: error }, 'folder watches could not be started'),
  );
  const exporter = new ExportService({ storage });
  const importer = new ImportService({
    storage,
    embedder,
    knowledge,
    // On a shared store an imported watch is followed here only if no other daemon follows it.
    adoptWatch: async (record) => {
      if (!watchCoordinator || (await watchCoordinator.hold(record))) await watches.adopt(record);
    },
    onError: (error, context) => options.logger?.warn({ err: error, ...context }, 'import: an imported watch could not be started'),
  });
  const backups = new BackupService({ storage, memVersion: VERSION });

  const admission = new Admission(options.admissionLimits ?? admissionLimits(availableParallelism()), undefined, SHARING_LANES);
  const timings = new RequestTimings(LOAD_WINDOW_SECONDS * 1000);
  const monitor = new LoadMonitor(
    {
      lanes: () => admission.load(),
      timings,
      embedder: embedder.load ? () => embedder.load?.() ?? EMPTY_EMBEDDER_LOAD : undefined,
      commits: storage.commitLoad ? () => storage.commitLoad?.() ?? { commits: 0, rows: 0, ms: 0 } : undefined,
      vectorSearches: storage.vectorSearchLoad ? () => storage.vectorSearchLoad?.() ?? { queries: 0, searches: 0 } : undefined,
      searchTables: storage.searchTablesLoad ? () => storage.searchTablesLoad?.() ?? EMPTY_SEARCH_TABLES_LOAD : undefined,
    },
    LOAD_WINDOW_SECONDS,
  );

  let address = '';
  return {
    storage,
    embedder,
    memories,
    query,
    auth,
    accounts,
    limiter,
    recorder,
    ingest,
    documents,
    documentSource,
    asyncSaves,
    saves: new SaveService({ quota: accounts, memories, asyncSaves, documents, documentSource, turbo, ingest }),
    reindexer,
    asker,
    reminder,
    turbo,
    knowledge,
    watches,
    exporter,
    importer,
    backups,
    load: { admission, timings, pace, report: () => monitor.report() },
    firstKey,
    ownerId: account.id,
    runtime: {
      startedAt: Date.now(),
      dataDir: paths.dataDir,
      ollamaHost: config['ollama.host'],
      address: () => address,
      checkOllama: () => checkOllama(config['ollama.host'], 1500),
      storage: { uri: location.display, shared: location.shared, commitProbe },
    },
    setAddress(value: string) {
      address = value;
    },
    async close() {
      monitor.close();
      if (adoption) clearInterval(adoption);
      watchCoordinator?.close();
      await watches.close();
      await ingest.close();
      await recorder.close();
      await extractionQueue.close();
      await queue.close();
      await answerer.close();
      await extractor.close();
      await storage.close();
      if (leases instanceof StoreLeases) leases.close();
      if (ownsEmbedder) await embedder.close();
    },
  };
}
