import { mkdirSync } from 'node:fs';
import type { Logger } from 'pino';
import type { LoadedConfig } from '../src/config/load-config.js';
import { writeApiKey } from '../src/config/credentials.js';
import { AskService } from '../src/core/answers/ask-service.js';
import { RemindService } from '../src/core/answers/remind-service.js';
import { TurboService } from '../src/core/answers/turbo-service.js';
import { AsyncSaves } from '../src/core/async-saves.js';
import { AuthService } from '../src/core/auth-service.js';
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
import type { AppDeps } from './deps.js';

export interface CreateDepsOptions {
  readonly loaded: LoadedConfig;
  readonly logger?: Logger;
  /** Stores the owner's first key for the CLI (off in tests that manage keys themselves). */
  readonly storeFirstKey?: boolean;
  /** Pre-built embedder (tests share one across apps to save start-up time). */
  readonly embedder?: EmbeddingModel;
}

export interface CreatedDeps extends AppDeps {
  /** The owner's first key when this start created it (shown to tests; never logged). */
  readonly firstKey: string | null;
  readonly ownerId: string;
  setAddress(address: string): void;
}

/** The composition root: the only place real adapters are constructed. */
export async function createDeps(options: CreateDepsOptions): Promise<CreatedDeps> {
  const { config, paths, storageUri } = options.loaded;
  mkdirSync(paths.dataDir, { recursive: true, mode: 0o700 });
  mkdirSync(paths.stateDir, { recursive: true, mode: 0o700 });

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

  const storage = await openLanceStore({
    uri: storageUri,
    vectorSpace: { modelId: embedder.modelId, dimension: embedder.dimension },
    cacheMb: { index: config['storage.indexCacheMb'], metadata: config['storage.metadataCacheMb'] },
    onMaintenanceError: (error) => options.logger?.warn({ err: error }, 'background table maintenance failed'),
  });
  const extractor =
    config['extraction.provider'] === 'ollama'
      ? new OllamaExtractor({ host: config['ollama.host'], model: config['ollama.extractModel'], timeoutMs: config['ollama.timeoutMs'] })
      : new BuiltinExtractor();
  // Its own queue: slow model extractions never hold up async saves or reindexing.
  const extractionQueue = new JobQueue(1);
  const knowledge = new KnowledgeService({
    storage,
    extractor,
    queue: extractionQueue,
    onError: (error, context) => options.logger?.warn({ err: error, ...context }, 'entity and fact extraction failed'),
  });
  const memories = new MemoryService({ storage, embedder, knowledge });
  const query = new QueryService({ storage, memories });
  const auth = new AuthService(storage);
  const queue = new JobQueue(2);
  const asyncSaves = new AsyncSaves(storage, memories, queue);
  const reindexer = new Reindexer(storage, memories, queue);
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
          new BuiltinLanguageModel(embedder),
        )
      : new BuiltinLanguageModel(embedder);
  const asker = new AskService(memories, answerer);
  const reminder = new RemindService(memories);
  const turbo = new TurboService(memories, asker);

  const { account, firstKey } = await auth.bootstrap();
  if (firstKey && options.storeFirstKey !== false) {
    const where = await writeApiKey(paths, firstKey);
    options.logger?.info({ store: where }, 'created the owner account and its first API key');
  }
  const resumedExtractions = await knowledge.resume((await storage.accounts.list()).map((entry) => entry.id));
  if (resumedExtractions > 0) options.logger?.info({ resumed: resumedExtractions }, 'resumed unfinished extractions');
  const resumed = await asyncSaves.resume();
  await reindexer.resume();
  if (resumed > 0) options.logger?.info({ resumed }, 'resumed unfinished async saves');

  let address = '';
  return {
    storage,
    embedder,
    memories,
    query,
    auth,
    asyncSaves,
    reindexer,
    asker,
    reminder,
    turbo,
    knowledge,
    firstKey,
    ownerId: account.id,
    runtime: {
      startedAt: Date.now(),
      dataDir: paths.dataDir,
      ollamaHost: config['ollama.host'],
      address: () => address,
      checkOllama: () => checkOllama(config['ollama.host'], 1500),
    },
    setAddress(value: string) {
      address = value;
    },
    async close() {
      await extractionQueue.close();
      await queue.close();
      await answerer.close();
      await extractor.close();
      await storage.close();
      if (ownsEmbedder) await embedder.close();
    },
  };
}
