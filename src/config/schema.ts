import { availableParallelism } from 'node:os';
import { z } from 'zod';

/**
 * Every configuration key of `mem`: its type, default, description, the environment variable that sets it,
 * and whether the daemon must restart to pick it up. Precedence: default < config file < env < CLI flag.
 */
export interface ConfigKeySpec<T extends z.ZodType = z.ZodType> {
  readonly schema: T;
  readonly default: z.infer<T>;
  readonly description: string;
  readonly env?: string;
  readonly requiresRestart: boolean;
  /** Holds credentials: `mem config list|get` and the logs show only whether it is set. */
  readonly secret?: boolean;
}

function key<T extends z.ZodType>(spec: ConfigKeySpec<T>): ConfigKeySpec<T> {
  return spec;
}

const port = z.coerce.number().int().min(0).max(65535);
const positiveMs = z.coerce.number().int().positive();
/** A boolean setting: true/false, or their words in a file or the environment (value-checks.ts knows it by identity). */
export const bool = z.union([z.boolean(), z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1')]);

export const CONFIG_SCHEMA = {
  'server.host': key({
    schema: z.string().min(1),
    default: '127.0.0.1',
    description: 'Address the daemon binds to. Loopback only unless you mean it.',
    env: 'MEM_BIND_HOST',
    requiresRestart: true,
  }),
  'server.port': key({
    schema: port,
    default: 7373,
    description: 'TCP port of the daemon.',
    env: 'MEM_PORT',
    requiresRestart: true,
  }),
  'server.bodyLimitBytes': key({
    schema: z.coerce.number().int().min(1024),
    default: 1_048_576,
    description: 'Largest accepted request body in bytes (saves are capped at 100 KB of content regardless).',
    requiresRestart: true,
  }),
  'client.url': key({
    schema: z.string().url(),
    default: '',
    description: 'Daemon URL the CLI talks to. Empty: the run file of a local daemon, else http://127.0.0.1:<port>.',
    env: 'MEM_HOST',
    requiresRestart: false,
  }),
  'client.autoStart': key({
    schema: bool,
    default: false,
    description: 'Start the daemon in the background when a CLI command finds none running.',
    env: 'MEM_AUTO_START',
    requiresRestart: false,
  }),
  'client.timeoutMs': key({
    schema: positiveMs,
    default: 120_000,
    description: 'How long the CLI waits for one daemon response.',
    env: 'MEM_CLIENT_TIMEOUT_MS',
    requiresRestart: false,
  }),
  'storage.uri': key({
    schema: z.string(),
    default: '',
    description:
      'Where the data lives: a local directory, or an object store (az://container/path, s3://bucket/path, gs://bucket/path) that several daemons can share. Empty: <data dir>/lancedb.',
    env: 'MEM_STORAGE_URI',
    requiresRestart: true,
  }),
  'storage.options': key({
    schema: z.union([z.record(z.string(), z.string()), z.string().transform((text, context) => parseOptions(text, context))]),
    default: {},
    description:
      "LanceDB object-store options as a JSON object of strings (e.g. {\"azure_storage_account_name\":\"...\"}); each cloud's standard variables (AZURE_STORAGE_*, AWS_*, GOOGLE_*) are read as well. Secret: never printed.",
    env: 'MEM_STORAGE_OPTIONS',
    requiresRestart: true,
    secret: true,
  }),
  'storage.readConsistencyMs': key({
    schema: z.coerce.number().int().min(0).max(3_600_000),
    default: 1000,
    description:
      'With an object-store URI: how stale a read may be (ms) before this daemon looks for writes of other daemons; 0 checks on every read. Ignored for a local directory (one daemon).',
    env: 'MEM_STORAGE_READ_CONSISTENCY_MS',
    requiresRestart: true,
  }),
  'storage.allowUnsafe': key({
    schema: bool,
    default: false,
    description:
      'Start on an object store that does not reject a second create-if-absent of one object (several daemons on it would lose writes). Only for a single daemon, on purpose.',
    env: 'MEM_STORAGE_ALLOW_UNSAFE',
    requiresRestart: true,
  }),
  'cluster.leaseMs': key({
    schema: z.coerce.number().int().min(1000).max(3_600_000),
    default: 15_000,
    description:
      'With an object-store URI: how long a lease on background work (an ingest job, maintenance) lasts without renewal; a dead daemon\'s work is taken over by another after this.',
    env: 'MEM_LEASE_MS',
    requiresRestart: true,
  }),
  'storage.indexCacheMb': key({
    schema: z.coerce.number().int().min(16).max(65536),
    default: 256,
    description: "Memory for LanceDB's index cache, in MiB (LanceDB's own default is 6 GB).",
    env: 'MEM_INDEX_CACHE_MB',
    requiresRestart: true,
  }),
  'storage.metadataCacheMb': key({
    schema: z.coerce.number().int().min(16).max(65536),
    default: 128,
    description: "Memory for LanceDB's file-metadata cache, in MiB (LanceDB's own default is 1 GB).",
    env: 'MEM_METADATA_CACHE_MB',
    requiresRestart: true,
  }),
  'embedding.provider': key({
    schema: z.enum(['builtin', 'ollama']),
    default: 'builtin',
    description: 'Embedding model: builtin (offline, Universal Sentence Encoder lite, 512-d) or ollama.',
    env: 'MEM_EMBEDDER',
    requiresRestart: true,
  }),
  'embedding.workers': key({
    schema: z.coerce.number().int().min(1).max(8),
    default: Math.min(2, Math.max(1, availableParallelism())),
    description: 'Most worker threads running the built-in embedder (default: 2, or 1 on a single core): one runs at rest, more start under load and stop after 30 s idle.',
    env: 'MEM_EMBED_WORKERS',
    requiresRestart: true,
  }),
  'search.modelFile': key({
    schema: z.string(),
    default: '',
    description:
      'A search scoring model (JSON: bias and feature weights) to use instead of the built-in one, e.g. one fitted for your embedder by bench/fit-search.ts. Empty: the built-in model.',
    env: 'MEM_SEARCH_MODEL_FILE',
    requiresRestart: true,
  }),
  'ollama.host': key({
    schema: z.string().url(),
    default: 'http://127.0.0.1:11434',
    description: 'Ollama server address.',
    env: 'MEM_OLLAMA_HOST',
    requiresRestart: true,
  }),
  'ollama.embedModel': key({
    schema: z.string().min(1),
    default: 'nomic-embed-text',
    description: 'Ollama model used for embeddings when embedding.provider is ollama.',
    env: 'MEM_OLLAMA_EMBED_MODEL',
    requiresRestart: true,
  }),
  'ollama.timeoutMs': key({
    schema: positiveMs,
    default: 30_000,
    description: 'Timeout of one Ollama request.',
    env: 'MEM_OLLAMA_TIMEOUT_MS',
    requiresRestart: true,
  }),
  'answer.provider': key({
    schema: z.enum(['builtin', 'ollama']),
    default: 'builtin',
    description: 'Who answers ask and turbo ask: builtin (offline, extractive) or ollama (ollama.chatModel.*).',
    env: 'MEM_ANSWERER',
    requiresRestart: true,
  }),
  'ollama.chatModel.fast': key({
    schema: z.string().min(1),
    default: 'llama3.2:1b',
    description: 'Ollama model for model "fast" (and turbo ask) when answer.provider is ollama.',
    env: 'MEM_OLLAMA_CHAT_MODEL_FAST',
    requiresRestart: true,
  }),
  'ollama.chatModel.default': key({
    schema: z.string().min(1),
    default: 'llama3.2',
    description: 'Ollama model for model "default" when answer.provider is ollama.',
    env: 'MEM_OLLAMA_CHAT_MODEL',
    requiresRestart: true,
  }),
  'ollama.chatModel.smart': key({
    schema: z.string().min(1),
    default: 'llama3.1:8b',
    description: 'Ollama model for model "smart" when answer.provider is ollama.',
    env: 'MEM_OLLAMA_CHAT_MODEL_SMART',
    requiresRestart: true,
  }),
  'extraction.provider': key({
    schema: z.enum(['builtin', 'ollama']),
    default: 'builtin',
    description:
      'Entity and fact extraction: builtin (offline rules, inside the save) or ollama (ollama.extractModel, in the background).',
    env: 'MEM_EXTRACTOR',
    requiresRestart: true,
  }),
  'ollama.extractModel': key({
    schema: z.string().min(1),
    default: 'llama3.2',
    description: 'Ollama model for entity and fact extraction when extraction.provider is ollama.',
    env: 'MEM_OLLAMA_EXTRACT_MODEL',
    requiresRestart: true,
  }),
  'log.level': key({
    schema: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    default: 'info',
    description: 'Daemon log level (logs go to <state dir>/daemon.log).',
    env: 'MEM_LOG_LEVEL',
    requiresRestart: true,
  }),
  'maintenance.intervalMs': key({
    schema: positiveMs,
    default: 300_000,
    description: 'How often the daemon compacts tables, cleans old versions and refreshes indexes.',
    requiresRestart: true,
  }),
  'network.allowPrivateNetworks': key({
    schema: bool,
    default: false,
    description:
      'Allow URL saves, ingest and webhooks to reach private-network addresses (10/8, 172.16/12, 192.168/16, link-local...). Loopback is always allowed.',
    env: 'MEM_ALLOW_PRIVATE_NETWORKS',
    requiresRestart: true,
  }),
  'ingest.fetchTimeoutMs': key({
    schema: positiveMs,
    default: 15_000,
    description: 'Time limit for fetching one URL (redirects and body included).',
    requiresRestart: true,
  }),
  'ingest.maxFetchBytes': key({
    schema: z.coerce.number().int().min(1024),
    default: 10 * 1024 * 1024,
    description: 'Largest response body a URL fetch reads (bytes).',
    requiresRestart: true,
  }),
  'ingest.maxRedirects': key({
    schema: z.coerce.number().int().min(0).max(20),
    default: 5,
    description: 'Redirects a URL fetch follows, each checked against the network policy.',
    requiresRestart: true,
  }),
  'ingest.maxUploadBytes': key({
    schema: z.coerce.number().int().min(1024),
    default: 10 * 1024 * 1024,
    description: 'Largest file POST /v1/save accepts as a multipart upload (bytes); larger files get CONTENT_TOO_LARGE.',
    requiresRestart: true,
  }),
  'ingest.concurrency': key({
    schema: z.coerce.number().int().min(1).max(256),
    default: 256,
    description: 'Ingest items processed at once across all jobs (URL fetches and file reads: at most 8 of them).',
    requiresRestart: true,
  }),
} as const;

function parseOptions(text: string, context: z.RefinementCtx): Record<string, string> {
  const result = z.record(z.string(), z.string()).safeParse(safeJson(text));
  if (!result.success) {
    context.addIssue({ code: 'custom', message: 'a JSON object of string values' });
    return z.NEVER;
  }
  return result.data;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export type ConfigKey = keyof typeof CONFIG_SCHEMA;
export type MemConfig = { [K in ConfigKey]: z.infer<(typeof CONFIG_SCHEMA)[K]['schema']> };
export const CONFIG_KEYS = Object.keys(CONFIG_SCHEMA) as ConfigKey[];

export function isConfigKey(value: string): value is ConfigKey {
  return Object.hasOwn(CONFIG_SCHEMA, value);
}
