import { z } from 'zod';
import { ERROR_CODES } from '../errors.js';
import { ENTITY_TYPES, FACT_CATEGORIES } from '../providers/spec.js';
import { AUTHOR_PATTERN, MAX_AUTHOR_CHARS } from '../core/author.js';
import { DEFAULT_WATCH_GLOB } from '../core/watch/glob.js';
import { jsonBytes, MAX_BULK_DELETE_IDS, MAX_FILTER_BYTES, MAX_METADATA_BYTES, MAX_TAG_CHARS, MAX_TAGS } from './limits.js';
import {
  ANSWER_TIERS,
  ENTITY_SORTS,
  HISTOGRAM_FIELDS,
  HISTOGRAM_INTERVALS,
  REMIND_TIMEFRAMES,
  USAGE_BREAKDOWNS,
  USAGE_PERIODS,
} from './vocabulary.js';

/**
 * Every request, response and error body of the Memory API, as zod schemas. The daemon validates with them
 * (and serves them as OpenAPI), the typed client reads its types from them. Field names follow the spec.
 */

const isoDate = z.iso.datetime({ offset: true }).or(z.iso.date());
const tags = z.array(z.string().min(1).max(MAX_TAG_CHARS)).max(MAX_TAGS);
/** Metadata as stored and answered: URL and file saves add what their extraction found, beyond the request limit. */
const storedMetadata = z.record(z.string(), z.unknown());
/** Metadata in a request. */
const metadata = z
  .record(z.string(), z.unknown())
  .refine((value) => jsonBytes(value) <= MAX_METADATA_BYTES, `metadata must be at most ${MAX_METADATA_BYTES} bytes as JSON`);
const spaceId = z.string().max(200);
/** Who wrote or said a memory (addition to the spec): one line, as questions would name them. */
const author = z
  .string()
  .max(MAX_AUTHOR_CHARS)
  .regex(AUTHOR_PATTERN, 'author must be one line')
  .describe(
    'Addition: who wrote or said the memory (a chat message\'s speaker, a note\'s writer), as questions would name them. ' +
      'Indexed with each passage ("Author: text"), and a hybrid search whose query names an author of its candidates ' +
      'ranks what others wrote lower. At most 200 characters, one line.',
  );
const memoryId = z.string().min(1).max(200).describe('Memory id: `mem_` + 26-character ULID.');
const createdAtParam = isoDate
  .optional()
  .describe(
    'Addition: when the content was written or happened (ISO 8601 date or date-time, at most 5 minutes in the future); default now. ' +
      'Stored as createdAt, so the memory sorts, filters and histograms by it. Content only (URL and file saves are dated when fetched).',
  );

export const ErrorBody = z
  .object({
    success: z.literal(false),
    error: z.enum(ERROR_CODES as [string, ...string[]]),
    message: z.string(),
    details: z.record(z.string(), z.unknown()).optional(),
    hint: z.string().optional(),
  })
  .catchall(z.unknown())
  .describe('Error envelope');

export const Pagination = z.object({
  limit: z.number(),
  offset: z.number(),
  total: z.number(),
  hasMore: z.boolean(),
});

/** A memory as every endpoint returns it (timestamps ISO 8601). */
export const Memory = z.object({
  id: z.string(),
  title: z.string(),
  content: z.string(),
  description: z.string(),
  tags: z.array(z.string()),
  metadata: storedMetadata,
  spaceId: z.string(),
  context: z.string().optional().describe('Addition: present when the memory was saved with a context.'),
  author: z.string().optional().describe('Addition: present when the memory was saved with an author.'),
  createdAt: z.string(),
  updatedAt: z.string().optional(),
});
export type Memory = z.infer<typeof Memory>;

// ---- save -------------------------------------------------------------------------------------------

export const SaveBody = z
  .object({
    content: z.string().optional(),
    url: z.string().optional(),
    title: z.string().max(500).optional(),
    description: z.string().max(5000).optional(),
    tags: tags.optional(),
    metadata: metadata.optional(),
    spaceId: spaceId.optional(),
    context: z.string().max(5000).optional().describe('Addition: text that situates the memory (the message it replies to, the section it comes from). Embedded and keyword-indexed with it, so a search finds the memory through what it answers; not part of its content. At most 5,000 characters; its last 64 words are indexed.'),
    author: author.optional(),
    async: z.boolean().optional().default(false),
    createdAt: createdAtParam,
  })
  .describe('Save content as a memory. One of content or url is required.');
export type SaveBody = z.input<typeof SaveBody>;

export const SaveSyncResponse = z.object({
  success: z.literal(true),
  message: z.string(),
  documentId: z.string(),
  data: z.object({
    id: z.string(),
    title: z.string(),
    contentPreview: z.string(),
    tags: z.array(z.string()),
    createdAt: z.string(),
  }),
});
export const SaveAsyncResponse = z.object({
  success: z.literal(true),
  message: z.string(),
  pendingId: z.string(),
  statusUrl: z.string(),
});
export const SaveResponse = z.union([SaveSyncResponse, SaveAsyncResponse]);
export type SaveResponse = z.infer<typeof SaveResponse>;

export const PendingParams = z.object({ pendingId: z.string().min(1).max(200) });
export const SaveStatusResponse = z.object({
  success: z.literal(true),
  status: z.enum(['pending', 'processing', 'completed', 'failed']),
  documentId: z.string().optional(),
  error: z.string().optional(),
});
export type SaveStatusResponse = z.infer<typeof SaveStatusResponse>;

// ---- memories ---------------------------------------------------------------------------------------

export const MemoryParams = z.object({ id: memoryId });

export const MemoryResponse = z.object({ success: z.literal(true), data: Memory });
export type MemoryResponse = z.infer<typeof MemoryResponse>;

export const UpdateBody = z
  .object({
    title: z.string().max(500).optional(),
    content: z.string().optional(),
    description: z.string().max(5000).optional(),
    tags: tags.optional(),
    metadata: metadata.optional(),
    spaceId: spaceId.optional(),
    context: z.string().max(5000).optional().describe('New context (see save); an empty string removes it. A change re-embeds the memory.'),
    author: author.optional().describe('New author (see save); an empty string removes it. A change re-embeds the memory.'),
  })
  .strict()
  .describe('Fields to change; content changes re-embed the memory. Addition to the spec.');
export type UpdateBody = z.infer<typeof UpdateBody>;

export const MessageResponse = z.object({ success: z.literal(true), message: z.string() });

export const BulkDeleteBody = z.object({ ids: z.array(z.string().max(200)).min(1).max(MAX_BULK_DELETE_IDS) });
export const BulkDeleteResponse = z.object({
  success: z.literal(true),
  deleted: z.number(),
  failed: z.array(z.object({ id: z.string(), error: z.string() })),
});
export type BulkDeleteResponse = z.infer<typeof BulkDeleteResponse>;

const limitParam = (max: number, fallback: number) => z.coerce.number().int().min(1).max(max).default(fallback);
const offsetParam = z.coerce.number().int().min(0).max(1_000_000).default(0);

export const ListQuery = z.object({
  limit: limitParam(100, 20),
  offset: offsetParam,
  spaceId: spaceId.optional(),
  tags: z.string().max(2000).optional().describe('Comma-separated; a memory matches with any of them.'),
  after: isoDate.optional(),
  before: isoDate.optional(),
});

export const ListResponse = z.object({
  success: z.literal(true),
  data: z.array(Memory),
  pagination: Pagination,
});
export type ListResponse = z.infer<typeof ListResponse>;

// ---- search -----------------------------------------------------------------------------------------

export const SearchBody = z.object({
  query: z.string().trim().min(1, 'query must not be empty').max(1000),
  limit: z.number().int().min(1).max(100).default(10),
  offset: z.number().int().min(0).max(10_000).default(0),
  threshold: z.number().min(0, 'threshold must be between 0 and 1').max(1, 'threshold must be between 0 and 1').default(0.5),
  spaceId: spaceId.optional(),
  tags: tags.optional(),
  after: isoDate.optional(),
  before: isoDate.optional(),
  hybrid: z
    .boolean()
    .default(true)
    .describe('Default true: meaning and words (keyword matches, names, phrases) in one calibrated score. false: meaning only (cosine similarity).'),
  explain: z.boolean().default(false).describe('Addition: each result carries `explanation`, the signals behind its score.'),
});
export type SearchBody = z.input<typeof SearchBody>;

export const SearchExplanation = z.object({
  matchedTerms: z.array(z.string()).describe("The query's words the memory contains (after stemming)."),
  highlights: z.array(z.tuple([z.number().int(), z.number().int()])).describe('Where those words stand in content: [start, end) character offsets.'),
  similarity: z.number().describe("Cosine similarity of the memory's best passage to the query."),
  keywordScore: z.number().describe('BM25 of its best passage (0 when the keyword index did not return it).'),
  features: z
    .record(z.string(), z.number())
    .describe('The inputs of the scoring model (README: Search).'),
  logit: z.number().describe('The ranking model: the weighted sum of the features.'),
  rank: z.number().int().describe('Place among the candidates by logit (0 = first); score = 1 / (1 + e^-(scale·logit + rank weight·ln(1 + rank) + offset)).'),
});

export const SearchResult = z.object({
  id: z.string(),
  content: z.string(),
  title: z.string(),
  score: z.number(),
  tags: z.array(z.string()),
  createdAt: z.string(),
  spaceId: z.string(),
  metadata: storedMetadata.optional(),
  author: z.string().optional().describe('Addition: present when the memory has an author.'),
  explanation: SearchExplanation.optional().describe('Addition: with explain true.'),
});

export const SearchResponse = z.object({
  success: z.literal(true),
  results: z.array(SearchResult),
  pagination: Pagination,
});
export type SearchResponse = z.infer<typeof SearchResponse>;

// ---- query ------------------------------------------------------------------------------------------

export const QUERY_FIELDS = ['id', 'title', 'content', 'description', 'author', 'tags', 'metadata', 'spaceId', 'createdAt', 'updatedAt'] as const;
export { HISTOGRAM_FIELDS, HISTOGRAM_INTERVALS };

const sortDirection = z.union([z.literal(1), z.literal(-1)], {
  error: 'sort direction must be 1 (ascending) or -1 (descending)',
});

export const QueryBody = z
  .object({
    query: z
      .string()
      .trim()
      .min(1, 'query must not be empty')
      .max(1000)
      .optional()
      .describe('Text: results are ranked by relevance to it (hybrid scoring, as search) and carry score.'),
    filters: z
      .record(z.string(), z.unknown())
      .refine((value) => jsonBytes(value) <= MAX_FILTER_BYTES, `filters must be at most ${MAX_FILTER_BYTES} bytes as JSON`)
      .optional()
      .describe(
        'Field -> value or {operator: value}. Operators $eq $ne $gt $gte $lt $lte $in $nin; $and and $or take arrays ' +
          'of filter objects, nested to any depth; a bare value means $eq. Fields: id, title, content, description, ' +
          'author (addition), tags (list: $eq/$in contain, $ne/$nin do not), spaceId, createdAt, updatedAt (ISO 8601 dates; a date ' +
          'alone is that whole day), metadata.<dotted.path>.',
      ),
    sort: z
      .record(z.string(), sortDirection)
      .optional()
      .describe('Field -> 1 (ascending) or -1 (descending), applied in order; metadata.<path> and score allowed. ' +
        'Default: score when query is given, else createdAt descending; ties by id.'),
    limit: z.number().int().min(1).max(100).default(20),
    offset: z.number().int().min(0).max(1_000_000).default(0),
    fields: z
      .array(z.string().max(100))
      .max(20)
      .optional()
      .describe(`Fields each result carries (id always; score with query): ${QUERY_FIELDS.join(', ')}.`),
    aggregate: z
      .object({
        countByTag: z.boolean().optional().describe('tag -> number of matching memories'),
        dateHistogram: z
          .object({ field: z.enum(HISTOGRAM_FIELDS), interval: z.enum(HISTOGRAM_INTERVALS) })
          .optional()
          .describe('Matching memories per day, ISO week (Monday), month or year of the account time zone.'),
      })
      .optional()
      .describe('Computed over every matching memory, not only the page.'),
    threshold: z
      .number()
      .min(0, 'threshold must be between 0 and 1')
      .max(1, 'threshold must be between 0 and 1')
      .default(0.5)
      .describe('Addition to the spec: minimum relevance score when query is given (as search).'),
  })
  .describe('Structured query: filters, sorts, projections and aggregations over memories.');
export type QueryBody = z.input<typeof QueryBody>;

export const QueryResult = z.object({
  id: z.string(),
  title: z.string().optional(),
  content: z.string().optional(),
  description: z.string().optional(),
  author: z.string().optional().describe('Addition: when asked for and the memory has one.'),
  tags: z.array(z.string()).optional(),
  metadata: storedMetadata.optional(),
  spaceId: z.string().optional(),
  createdAt: z.string().optional(),
  updatedAt: z.string().optional().describe('Absent when the memory was never updated.'),
  score: z.number().optional().describe('Relevance 0-1, only when query is given.'),
});
export type QueryResult = z.infer<typeof QueryResult>;

export const QueryAggregations = z.object({
  countByTag: z.record(z.string(), z.number()).optional(),
  dateHistogram: z.array(z.object({ date: z.string().describe('Bucket start, YYYY-MM-DD'), count: z.number() })).optional(),
});

export const QueryResponse = z.object({
  success: z.literal(true),
  results: z.array(QueryResult),
  aggregations: QueryAggregations.optional().describe('Only when aggregate asks for them.'),
  pagination: Pagination,
});
export type QueryResponse = z.infer<typeof QueryResponse>;

// ---- keys -------------------------------------------------------------------------------------------

export const KeyIdParams = z.object({ id: z.string().min(1).max(200) });

export const ApiKey = z.object({
  id: z.string(),
  name: z.string(),
  type: z.enum(['live', 'test']),
  key: z.string().describe('Redacted (prefix and last 4) except in create/regenerate responses.'),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
  expiresAt: z.string().nullable(),
  rateLimitPerHour: z.number().nullable(),
  monthlyLimit: z.number().nullable(),
  readOnly: z.boolean(),
  current: z.boolean().optional().describe('In GET /keys: true for the key that made this request (addition).'),
});
export type ApiKey = z.infer<typeof ApiKey>;

export const CreateKeyBody = z.object({
  name: z.string().trim().min(1).max(100),
  type: z.enum(['live', 'test']).default('live'),
  rateLimitPerHour: z.number().int().positive().optional(),
  monthlyLimit: z.number().int().positive().optional(),
  expiresAt: isoDate.optional(),
  readOnly: z.boolean().default(false),
});
export type CreateKeyBody = z.input<typeof CreateKeyBody>;

export const KeyResponse = z.object({ success: z.literal(true), message: z.string(), data: ApiKey });
export type KeyResponse = z.infer<typeof KeyResponse>;
export const KeyListResponse = z.object({ success: z.literal(true), keys: z.array(ApiKey) });
export type KeyListResponse = z.infer<typeof KeyListResponse>;

// ---- ingest ---------------------------------------------------------------------------------------------

export const IngestItem = z.object({
  content: z.string().max(200_000).optional(),
  url: z.string().max(2048).optional(),
  title: z.string().max(500).optional(),
  tags: tags.optional(),
  metadata: metadata.optional(),
  spaceId: spaceId.optional().describe('Addition: the space of this item (default: the profile default space).'),
  context: z.string().max(5000).optional().describe('Addition, as in save (content items only).'),
  author: author.optional().describe('Addition, as in save (content items only).'),
  createdAt: createdAtParam,
});
export type IngestItem = z.input<typeof IngestItem>;

export const IngestBody = z.object({
  items: z.array(IngestItem).min(1, 'items must not be empty').max(100_000),
  async: z.boolean().default(true),
  webhook: z.string().max(2048).optional().describe('http(s) URL that receives a signed POST when the job finishes.'),
  turbo: z.boolean().default(false).describe('Addition: store and embed only, no extraction (as turbo save).'),
});
export type IngestBody = z.input<typeof IngestBody>;

export const IngestAsyncResponse = z.object({
  success: z.literal(true),
  message: z.string(),
  jobId: z.string(),
  itemCount: z.number(),
  statusUrl: z.string(),
});
export type IngestAsyncResponse = z.infer<typeof IngestAsyncResponse>;

export const IngestSyncResponse = z.object({
  success: z.literal(true),
  processed: z.number(),
  results: z.array(z.object({ index: z.number(), success: z.boolean(), documentId: z.string().optional(), error: z.string().optional() })),
});
export type IngestSyncResponse = z.infer<typeof IngestSyncResponse>;

export const WebhookAttempt = z.object({
  attempt: z.number(),
  at: z.string(),
  status: z.number().nullable(),
  error: z.string().nullable(),
  durationMs: z.number(),
});

export const IngestStatusResponse = z.object({
  success: z.literal(true),
  jobId: z.string(),
  status: z.enum(['pending', 'processing', 'completed', 'failed']),
  progress: z.object({ total: z.number(), completed: z.number(), failed: z.number(), percentage: z.number() }),
  startedAt: z.string().nullable().describe('Null while the job waits for a slot (pending).'),
  completedAt: z.string().nullable(),
  createdAt: z.string(),
  documents: z.array(z.string()).describe('Ids of the memories the items made or found (addition).'),
  errors: z.array(z.object({ index: z.number(), error: z.string() })),
  webhook: z
    .object({ url: z.string(), delivered: z.boolean().nullable(), attempts: z.array(WebhookAttempt) })
    .nullable()
    .describe('Delivery of the completion webhook: null delivered while pending or retrying.'),
});
export type IngestStatusResponse = z.infer<typeof IngestStatusResponse>;

export const JobIdParams = z.object({ jobId: z.string().min(1).max(200) });
export const JobListQuery = z.object({ limit: z.coerce.number().int().min(1).max(100).default(20) });
export const WebhookSecretResponse = z.object({
  success: z.literal(true),
  secret: z.string(),
  header: z.string().describe('The request header that carries the signature.'),
  scheme: z.string(),
});
export type WebhookSecretResponse = z.infer<typeof WebhookSecretResponse>;

// ---- account: usage, profile, users ------------------------------------------------------------------

const limitNumber = z.number().describe('-1 means unlimited.');

export const UsageQuery = z.object({
  period: z.enum(USAGE_PERIODS).default('month'),
  breakdown: z.enum(USAGE_BREAKDOWNS).optional(),
});
export type UsageQuery = z.input<typeof UsageQuery>;

export const UsageResponse = z.object({
  success: z.literal(true),
  usage: z.object({
    period: z.enum(['day', 'week', 'month', 'all']),
    mode: z.enum(['live', 'test']).describe("The calling key's mode: live keys see live traffic, test keys test traffic."),
    startDate: z.string(),
    endDate: z.string(),
    summary: z.object({
      totalRequests: z.number(),
      successfulRequests: z.number(),
      failedRequests: z.number(),
      averageLatencyMs: z.number(),
    }),
    limits: z.object({ requestsPerHour: limitNumber, monthlyRequests: limitNumber, usedPercentage: z.number() }),
    storage: z.object({ memoryCount: z.number(), totalSizeMb: z.number(), limitMb: limitNumber, usedPercentage: z.number() }),
    byEndpoint: z
      .array(z.object({ endpoint: z.string(), method: z.string(), requests: z.number(), percentage: z.number(), avgLatencyMs: z.number() }))
      .optional(),
    daily: z.array(z.object({ date: z.string(), requests: z.number(), successful: z.number(), failed: z.number() })).optional(),
    byKey: z
      .array(
        z.object({
          keyId: z.string(),
          name: z.string(),
          type: z.enum(['live', 'test']),
          requests: z.number(),
          successful: z.number(),
          failed: z.number(),
          avgLatencyMs: z.number(),
        }),
      )
      .optional(),
  }),
});
export type UsageResponse = z.infer<typeof UsageResponse>;

const Tier = z.enum(['free', 'pro', 'enterprise']);

export const ProfileSettings = z.object({ defaultSpace: z.string(), timezone: z.string(), language: z.string() });

export const Profile = z.object({
  id: z.string(),
  email: z.string(),
  name: z.string(),
  company: z.string(),
  tier: Tier,
  createdAt: z.string(),
  settings: ProfileSettings,
  limits: z.object({
    requestsPerHour: limitNumber,
    monthlyRequests: limitNumber,
    maxStorageMb: limitNumber,
    maxMemories: limitNumber,
    ingestItemsPerRequest: z.number(),
    concurrentJobs: limitNumber,
  }),
  currentUsage: z.object({ memoryCount: z.number(), storageMb: z.number(), monthlyRequests: z.number() }),
});
export type Profile = z.infer<typeof Profile>;
export const ProfileResponse = z.object({ success: z.literal(true), profile: Profile });
export type ProfileResponse = z.infer<typeof ProfileResponse>;

export const UpdateProfileBody = z
  .object({
    name: z.string().trim().min(1).max(200).optional(),
    company: z.string().trim().max(200).optional(),
    settings: z
      .object({
        defaultSpace: z.string().trim().max(100).optional(),
        timezone: z.string().trim().min(1).max(100).optional().describe('An IANA name such as Europe/Berlin.'),
        language: z.string().trim().min(2).max(35).optional().describe('A BCP 47 tag such as en or de-CH.'),
      })
      .strict()
      .optional(),
  })
  .strict();
export type UpdateProfileBody = z.input<typeof UpdateProfileBody>;

export const User = z.object({
  id: z.string(),
  email: z.string(),
  name: z.string(),
  company: z.string(),
  tier: Tier,
  createdAt: z.string(),
  isOwner: z.boolean(),
});
export type User = z.infer<typeof User>;

export const UserIdParams = z.object({ id: z.string().min(1).max(200) });
export const CreateUserBody = z.object({
  email: z.email().max(320),
  name: z.string().trim().min(1).max(200),
  company: z.string().trim().max(200).optional(),
  tier: Tier.default('free'),
});
export type CreateUserBody = z.input<typeof CreateUserBody>;
export const UpdateUserBody = z
  .object({ tier: Tier.optional(), name: z.string().trim().min(1).max(200).optional(), company: z.string().trim().max(200).optional() })
  .strict();
export type UpdateUserBody = z.input<typeof UpdateUserBody>;
export const UserResponse = z.object({ success: z.literal(true), data: User });
export type UserResponse = z.infer<typeof UserResponse>;
export const CreatedUserResponse = z.object({
  success: z.literal(true),
  message: z.string(),
  data: User,
  key: ApiKey.describe("The new user's first live key; its value is shown only here."),
});
export type CreatedUserResponse = z.infer<typeof CreatedUserResponse>;
export const UserListResponse = z.object({ success: z.literal(true), users: z.array(User) });
export type UserListResponse = z.infer<typeof UserListResponse>;

// ---- daemon -----------------------------------------------------------------------------------------

export const HealthResponse = z.object({ status: z.literal('ok'), version: z.string() });
export type HealthResponse = z.infer<typeof HealthResponse>;

const percentiles = z.object({ p50: z.number(), p99: z.number() });
const laneLoad = z.object({
  running: z.number().describe('Requests of the lane running now: above concurrency while it uses slots the lane it shares with leaves idle (search and write)'),
  queued: z.number(),
  concurrency: z.number().describe("The lane's own slots: requests of it that run at once; more wait in its queue unless a lane it shares with has a slot idle"),
  maxQueued: z.number().describe('Requests that may wait in the lane; one more is answered 429 RATE_LIMITED'),
  admitted: z.number().describe('Requests admitted since the start'),
  rejected: z.number().describe('Requests refused with 429 RATE_LIMITED because the lane was full, since the start'),
});
export const LoadStatus = z.object({
  windowSeconds: z.number(),
  eventLoop: z.object({ delayP50Ms: z.number(), delayP99Ms: z.number(), delayMaxMs: z.number(), utilization: z.number() }),
  cpu: z
    .object({
      process: z.number(),
      main: z.number(),
      workers: z.record(z.string(), z.number()).describe('Busy share per kind of worker thread (embed-worker, extract-worker)'),
      other: z.number().describe("The rest of the process: LanceDB's threads, garbage collection, I/O"),
    })
    .describe('Cores kept busy (1 = one core all the time)'),
  lanes: z.object({ read: laneLoad, search: laneLoad, write: laneLoad, bulk: laneLoad }),
  requests: z
    .array(
      z.object({
        type: z.string().describe('Method and route, e.g. POST /v1/search'),
        count: z.number(),
        perSecond: z.number(),
        errors: z.number().describe('Answers with a 5xx status'),
        queuedMs: percentiles.describe('Time waiting for a slot of its lane'),
        workingMs: percentiles.describe('Time from the slot to the answer'),
      }),
    )
    .describe('Per request type over the window'),
  embedder: z
    .object({
      workers: z.number(),
      queued: z.object({ interactive: z.number(), background: z.number() }),
      textsPerSecond: z.number(),
      meanBatch: z.number(),
      queuedMs: z.number().describe('Mean time a text waited for a worker'),
      workingMs: z.number().describe('Mean time from a worker taking a text to its vector'),
    })
    .nullable()
    .describe('The built-in embedder; null for Ollama'),
  commits: z
    .object({ perSecond: z.number(), rowsPerCommit: z.number(), meanMs: z.number() })
    .nullable()
    .describe('LanceDB writes (each a new table version)'),
  vectorSearches: z
    .object({
      queriesPerSecond: z.number().describe('Vector queries sent to LanceDB'),
      searchesPerSecond: z.number().describe('Vector searches those queries answered'),
      searchesPerQuery: z.number().describe('Searches each query answered: concurrent searches with the same filter and depth share one query'),
    })
    .nullable()
    .describe('The vector step of searches'),
  searchTables: z
    .object({
      pendingCommits: z.number().describe('Commits to the memories or passages table since its last compaction: fragments every search reads until the next'),
      compactions: z.number().describe('Compactions of those tables finished in the window'),
      compactingShare: z.number().describe('Share of the window those compactions took (0-1)'),
      vectorIndexParts: z.number().nullable().describe('Parts of the vector index (each compaction that finds new passages adds one); null: no index yet, searches compare every passage'),
      pendingPassages: z
        .number()
        .nullable()
        .optional()
        .describe('Passages saved since the last compaction that searches compare in the daemon rather than in the tables; null: searches read them from the tables (a shared store, or after a start, an edit or more new passages than the daemon keeps, until the next compaction). Absent from daemons before it'),
    })
    .nullable()
    .describe('The tables searches read'),
});
export type LoadStatus = z.infer<typeof LoadStatus>;

export const StatusResponse = z.object({
  success: z.literal(true),
  version: z.string(),
  pid: z.number(),
  address: z.string(),
  uptimeSeconds: z.number(),
  memoryCount: z.number(),
  dataDir: z.string(),
  models: z.object({
    embedding: z.object({ provider: z.string(), model: z.string(), dimension: z.number() }),
  }),
  ollama: z.object({ host: z.string(), reachable: z.boolean(), models: z.array(z.string()) }),
  vectors: z.object({ missing: z.number().describe('Memories without vectors in the current embedding space') }),
  extraction: z
    .object({
      model: z.string().describe('The extraction model new saves use'),
      queued: z.number().describe("This account's extractions waiting or running in the background (saves with Ollama, retries, `mem extract --rerun`)"),
    })
    .optional()
    .describe('Entity and fact extraction (addition)'),
  load: LoadStatus.optional()
    .describe('How busy the daemon is over the last few seconds (addition): where the time goes under load.'),
  storage: z
    .object({
      uri: z.string().describe('Where the data lives, without credentials'),
      shared: z.boolean().describe('An object store that several daemons may share'),
      readMs: z.number().describe('How long counting the memories took for this response'),
      commitProbe: z
        .object({ safe: z.boolean(), ms: z.number() })
        .nullable()
        .describe('Object stores: whether the store rejected a second create-if-absent when the daemon started, and how long proving it took'),
    })
    .optional(),
});
export type StatusResponse = z.infer<typeof StatusResponse>;

export const JobParams = z.object({ jobId: z.string().min(1).max(200) });
export const Job = z.object({
  jobId: z.string(),
  kind: z.string(),
  status: z.enum(['pending', 'processing', 'completed', 'failed']),
  progress: z.object({ total: z.number(), completed: z.number(), failed: z.number(), percentage: z.number() }),
  startedAt: z.string().nullable(),
  completedAt: z.string().nullable(),
  error: z.string().nullable(),
});
export type Job = z.infer<typeof Job>;
export const JobResponse = z.object({ success: z.literal(true) }).extend(Job.shape);
export type JobResponse = z.infer<typeof JobResponse>;
export const JobListResponse = z.object({ success: z.literal(true), jobs: z.array(Job) });
export type JobListResponse = z.infer<typeof JobListResponse>;
export const ReindexResponse = z.object({
  success: z.literal(true),
  message: z.string(),
  jobId: z.string(),
  statusUrl: z.string(),
  total: z.number(),
});
export type ReindexResponse = z.infer<typeof ReindexResponse>;

// ---- answers: ask, remind, turbo --------------------------------------------------------------------

export { ANSWER_TIERS, REMIND_TIMEFRAMES };

const requiredText = (name: string) =>
  z.string({ error: (issue) => (issue.input === undefined ? `${name} is required` : `${name} must be a string`) });
const askQuery = requiredText('query')
  .trim()
  .min(1, 'query must not be empty')
  .max(1000, 'query must be at most 1000 characters');

export const AskBody = z
  .object({
    query: askQuery,
    limit: z.number().int().min(1, 'limit must be between 1 and 100').max(100, 'limit must be between 1 and 100').default(10)
      .describe('Most memories the answer may draw on.'),
    spaceId: spaceId.optional(),
    filters: z
      .object({ tags: tags.optional(), after: isoDate.optional(), before: isoDate.optional() })
      .strict()
      .optional()
      .describe('tags (any of), after and before (ISO 8601, inclusive, on createdAt).'),
    includeContext: z.boolean().default(false),
    model: z
      .enum(ANSWER_TIERS, { error: 'model must be one of default, fast, smart' })
      .default('default')
      .describe('fast: quicker, shorter; default: balanced; smart: slower, fuller. Mapped to the configured models.'),
    stream: z.boolean().default(false).describe('Addition: stream the answer as server-sent events (as Accept: text/event-stream).'),
  })
  .describe('Ask a question; the answer is grounded only in the retrieved memories.');
export type AskBody = z.input<typeof AskBody>;

export const AskContextItem = z.object({ id: z.string(), content: z.string(), title: z.string(), relevance: z.number() });
export const AnswerSourceRef = z.object({ id: z.string(), title: z.string() });

export const AskResponse = z.object({
  success: z.literal(true),
  answer: z.string(),
  confidence: z.number().describe('0-1: retrieval relevance of the cited memories x (0.5 + 0.5 x answer support).'),
  tokensUsed: z.number().describe('Tokens the model read and wrote (the built-in answerer: the tokens it read).'),
  context: z.array(AskContextItem).optional().describe('Only with includeContext: the retrieved memories, best first.'),
  noResult: z.boolean(),
  suggestion: z.string().optional().describe('With noResult: what to try instead.'),
  sources: z.array(AnswerSourceRef).describe('Addition: the memories the answer cites, in the order it uses them.'),
  model: z.string().describe('Addition: which model answered, e.g. builtin/extractive or ollama/llama3.2.'),
});
export type AskResponse = z.infer<typeof AskResponse>;

/** Server-sent event `delta` of a streamed answer: the next piece of text. The last event, `done`, is AskResponse. */
export const AskDeltaEvent = z.object({ text: z.string() });

export const RemindBody = z.object({
  context: requiredText('context').trim().min(10, 'context must be at least 10 characters').max(10_000),
  limit: z.number().int().min(1, 'limit must be between 1 and 100').max(100, 'limit must be between 1 and 100').default(5),
  threshold: z.number().min(0, 'threshold must be between 0 and 1').max(1, 'threshold must be between 0 and 1').default(0.6),
  timeframe: z
    .enum(REMIND_TIMEFRAMES, { error: 'timeframe must be one of today, week, month, all' })
    .default('all')
    .describe('Memories saved today (since 00:00 UTC), in the last 7 days, the last 30 days, or ever (default).'),
});
export type RemindBody = z.input<typeof RemindBody>;

export const RemindResponse = z.object({
  success: z.literal(true),
  reminders: z.array(
    z.object({
      id: z.string(),
      title: z.string(),
      content: z.string().describe('Preview (up to 200 characters).'),
      relevance: z.number(),
      reason: z.string(),
      createdAt: z.string(),
    }),
  ),
  totalFound: z.number().describe('Memories at or above threshold within the timeframe (among the ranked candidates).'),
});
export type RemindResponse = z.infer<typeof RemindResponse>;

export const TurboSaveBody = z.object({
  content: requiredText('content').max(200_000),
  title: z.string().max(500).optional(),
  tags: tags.optional(),
  spaceId: spaceId.optional().describe('Addition, as in save.'),
  context: z.string().max(5000).optional().describe('Addition, as in save.'),
  author: author.optional().describe('Addition, as in save.'),
});
export type TurboSaveBody = z.input<typeof TurboSaveBody>;

export const TurboSaveResponse = z.object({
  success: z.literal(true),
  documentId: z.string(),
  processingTime: z.number().describe('Milliseconds the daemon spent storing and embedding.'),
});
export type TurboSaveResponse = z.infer<typeof TurboSaveResponse>;

export const TurboAskBody = z.object({
  query: askQuery,
  limit: z.number().int().min(1, 'limit must be between 1 and 100').max(100, 'limit must be between 1 and 100').default(5),
});
export type TurboAskBody = z.input<typeof TurboAskBody>;

export const TurboAskResponse = z.object({
  success: z.literal(true),
  answer: z.string(),
  processingTime: z.number().describe('Milliseconds the daemon spent retrieving and answering.'),
  confidence: z.number(),
  tokensUsed: z.number(),
  noResult: z.boolean(),
  suggestion: z.string().optional(),
  sources: z.array(AnswerSourceRef),
  model: z.string(),
});
export type TurboAskResponse = z.infer<typeof TurboAskResponse>;

// ---- knowledge: entities, facts, graph ------------------------------------------------------------------

export { ENTITY_TYPES, FACT_CATEGORIES };
export { ENTITY_SORTS };

const entityTypeParam = z.enum(ENTITY_TYPES, { error: `type must be one of ${ENTITY_TYPES.join(', ')}` });
const knowledgeLimit = (what: string) =>
  z.coerce.number({ error: `limit must be a number` }).int().min(1, `limit must be at least 1`).max(1000, `limit must be at most 1000 ${what}`).default(50);
const booleanParam = z
  .enum(['true', 'false', '1', '0'], { error: 'must be true or false' })
  .transform((value) => value === 'true' || value === '1');

export const EntitiesQuery = z.object({
  limit: knowledgeLimit('entities'),
  offset: offsetParam,
  type: entityTypeParam.optional(),
  search: z.string().max(200).optional().describe('Case-insensitive substring of the name or of an alias.'),
  sortBy: z
    .enum(ENTITY_SORTS, { error: `sortBy must be one of ${ENTITY_SORTS.join(', ')}` })
    .default('mentions')
    .describe('mentions (most first), name (A-Z, case-insensitive) or recent (latest lastSeen first).'),
});
export type EntitiesQuery = z.input<typeof EntitiesQuery>;

export const Entity = z.object({
  id: z.string(),
  name: z.string(),
  type: z.enum(ENTITY_TYPES),
  aliases: z.array(z.string()),
  properties: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
  mentions: z.number(),
  firstSeen: z.string(),
  lastSeen: z.string(),
  relatedDocuments: z.array(z.string()),
});
export type Entity = z.infer<typeof Entity>;

export const EntitiesResponse = z.object({
  success: z.literal(true),
  entities: z.array(Entity),
  pagination: z.object({ limit: z.number(), offset: z.number(), total: z.number() }),
  stats: z.record(z.string(), z.number()).describe('Entity type -> number of entities of the account.'),
});
export type EntitiesResponse = z.infer<typeof EntitiesResponse>;

export const FactsQuery = z.object({
  limit: knowledgeLimit('facts'),
  offset: offsetParam,
  entity: z.string().max(300).optional().describe('Entity name, alias or id: facts whose subject or object it is.'),
  category: z.enum(FACT_CATEGORIES, { error: `category must be one of ${FACT_CATEGORIES.join(', ')}` }).optional(),
  confidence: z.coerce
    .number({ error: 'confidence must be a number between 0 and 1' })
    .min(0, 'confidence must be between 0 and 1')
    .max(1, 'confidence must be between 0 and 1')
    .optional()
    .describe('Minimum confidence.'),
  includeSuperseded: booleanParam.optional().describe('Addition: true also returns facts a later fact superseded (the history).'),
});
export type FactsQuery = z.input<typeof FactsQuery>;

export const Fact = z.object({
  id: z.string(),
  statement: z.string(),
  subject: z.string(),
  predicate: z.string(),
  object: z.string(),
  category: z.enum(FACT_CATEGORIES),
  confidence: z.number(),
  source: z.object({ documentId: z.string(), excerpt: z.string() }),
  extractedAt: z.string(),
  validFrom: z.string().nullable().describe('Addition: when the fact became true, when the text says so.'),
  validTo: z.string().nullable().describe('Addition: when a later contradicting fact superseded it (a day still to come: the fact holds until then); null while no later fact contradicts it.'),
  supersededBy: z.string().nullable().describe('Addition: id of the superseding fact.'),
  supportingDocuments: z.array(z.string()).describe('Addition: every memory stating the fact.'),
});
export type Fact = z.infer<typeof Fact>;

export const FactsResponse = z.object({
  success: z.literal(true),
  facts: z.array(Fact),
  pagination: z.object({ limit: z.number(), offset: z.number(), total: z.number() }),
});
export type FactsResponse = z.infer<typeof FactsResponse>;

export const GraphQuery = z.object({
  entity: z.string().max(300).optional().describe('Start from this entity (name, alias or id); else the most mentioned.'),
  type: entityTypeParam.optional(),
  depth: z.coerce
    .number({ error: 'depth must be a number from 1 to 3' })
    .int('depth must be a whole number')
    .min(1, 'depth must be at least 1')
    .max(3, 'depth must be at most 3')
    .default(1),
  limit: knowledgeLimit('nodes'),
});
export type GraphQuery = z.input<typeof GraphQuery>;

export const GraphNode = z.object({
  id: z.string(),
  name: z.string(),
  type: z.enum(ENTITY_TYPES),
  properties: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
  mentionCount: z.number(),
});
export const GraphEdge = z.object({
  source: z.string(),
  target: z.string(),
  relationship: z.string(),
  strength: z.number().describe('0-1: 1 - product of (1 - confidence/2) over the memories stating it.'),
});
export const GraphResponse = z.object({
  success: z.literal(true),
  nodes: z.array(GraphNode),
  edges: z.array(GraphEdge),
  stats: z.object({ totalNodes: z.number(), totalEdges: z.number(), types: z.record(z.string(), z.number()) }),
});
export type GraphResponse = z.infer<typeof GraphResponse>;

export const ExtractionStatusResponse = z.object({
  success: z.literal(true),
  memoryId: z.string(),
  status: z.enum(['pending', 'processing', 'completed', 'failed']),
  error: z.string().optional(),
  model: z.string(),
  attempts: z.number(),
  updatedAt: z.string(),
  entities: z.number(),
  facts: z.number(),
});
export type ExtractionStatusResponse = z.infer<typeof ExtractionStatusResponse>;

export const EnrichResponse = ExtractionStatusResponse.extend({ message: z.string() });
export type EnrichResponse = z.infer<typeof EnrichResponse>;

export const EnrichAllBody = z.object({
  allTurbo: z.literal(true).describe('Enrich every memory saved through turbo and not enriched since.'),
});
export const EnrichAllResponse = z.object({
  success: z.literal(true),
  message: z.string(),
  enriched: z.number(),
  memoryIds: z.array(z.string()),
});
export type EnrichAllResponse = z.infer<typeof EnrichAllResponse>;

export const ExtractRetryResponse = z.object({
  success: z.literal(true),
  message: z.string(),
  retried: z.number(),
  memoryIds: z.array(z.string()),
});
export type ExtractRetryResponse = z.infer<typeof ExtractRetryResponse>;

export const ExtractRerunBody = z
  .object({
    all: z.boolean().default(false).describe('Every standard memory, not only those another extraction model extracted.'),
  })
  .strict();
export type ExtractRerunBody = z.input<typeof ExtractRerunBody>;

export const ExtractRerunResponse = z.object({
  success: z.literal(true),
  message: z.string(),
  queued: z.number(),
  memoryIds: z.array(z.string()),
});
export type ExtractRerunResponse = z.infer<typeof ExtractRerunResponse>;

// ---- folder watch (addition) ----------------------------------------------------------------------------

export { DEFAULT_WATCH_GLOB };

export const WatchBody = z.object({
  path: z.string().min(1).max(4096).describe('Absolute path of an existing directory; the daemon reads it with its own permissions.'),
  glob: z
    .string()
    .min(1)
    .max(500)
    .optional()
    .describe(`Files to take, relative to the directory (\`**\` any depth, {a,b}, case-insensitive). Default: ${DEFAULT_WATCH_GLOB}`),
  tags: tags.optional(),
  spaceId: spaceId.optional().describe('Default: the profile default space.'),
  keepDeleted: z.boolean().default(false).describe("Keep a file's memory when the file is deleted."),
});
export type WatchBody = z.input<typeof WatchBody>;

export const WatchIdParams = z.object({ id: z.string().min(1).max(200) });

export const Watch = z.object({
  id: z.string(),
  path: z.string(),
  glob: z.string(),
  tags: z.array(z.string()),
  spaceId: z.string(),
  keepDeleted: z.boolean(),
  createdAt: z.string(),
  state: z
    .enum(['starting', 'watching', 'failed', 'elsewhere'])
    .describe('`elsewhere`: several daemons share the store and another one follows this watch (the one whose host can read the folder).'),
  fileCount: z.number().describe('Files of the folder that have a memory.'),
  lastEventAt: z.string().nullable(),
  lastError: z.string().nullable(),
  initialJobId: z.string().nullable().describe('The ingest job of the first scan (GET /v1/ingest/status/:jobId).'),
});
export type Watch = z.infer<typeof Watch>;

export const WatchCreatedResponse = z.object({
  success: z.literal(true),
  message: z.string(),
  watch: Watch,
  jobId: z.string(),
  statusUrl: z.string(),
});
export type WatchCreatedResponse = z.infer<typeof WatchCreatedResponse>;

export const WatchListResponse = z.object({ success: z.literal(true), watches: z.array(Watch) });
export type WatchListResponse = z.infer<typeof WatchListResponse>;

// ---- export, import and backup (additions) ----------------------------------------------------------------

export const ExportQuery = z.object({
  spaceId: spaceId.optional().describe('Only the memories of this space (and the knowledge they contribute).'),
  since: isoDate.optional().describe('Only memories created or updated at or after this date (and the knowledge they contribute).'),
  withVectors: booleanParam.optional().describe('Include each memory\'s passages and vectors (with the embedding model in the header).'),
});
export type ExportQuery = z.input<typeof ExportQuery>;

/** Records per import request: the CLI sends a large file in batches. */
export const IMPORT_MAX_RECORDS = 5000;

export const ImportQuery = z.object({
  dryRun: booleanParam.optional().describe('Validate and report what would change; write nothing.'),
});

export const ImportBody = z
  .union([
    z.string().describe('application/x-ndjson: one export record per line'),
    z.object({ records: z.array(z.unknown()).max(IMPORT_MAX_RECORDS) }),
  ])
  .describe(`Export records (the format of GET /v1/export), as NDJSON text or JSON {records: [...]}; at most ${IMPORT_MAX_RECORDS} per request.`);
export type ImportBody = z.input<typeof ImportBody>;

export const ImportCounts = z.object({
  created: z.number(),
  updated: z.number(),
  unchanged: z.number(),
  failed: z.number(),
});
export type ImportCounts = z.infer<typeof ImportCounts>;

export const ImportResponse = z
  .object({
    success: z.literal(true),
    dryRun: z.boolean(),
    processed: z.number().describe('Records in the request, header and end lines included.'),
    byType: z
      .object({ memory: ImportCounts, entity: ImportCounts, fact: ImportCounts, edge: ImportCounts, space: ImportCounts, watch: ImportCounts })
      .describe('Counts per record type (space lines only describe spaces: always unchanged).'),
    errors: z.array(
      z.object({
        index: z.number().describe('0-based position of the record in the request.'),
        type: z.string().nullable(),
        id: z.string().nullable(),
        error: z.string(),
      }),
    ),
  })
  .extend(ImportCounts.shape);
export type ImportResponse = z.infer<typeof ImportResponse>;

export const BackupBody = z.object({
  path: z.string().min(1).max(4096).describe('Absolute path of a directory that does not exist yet (or is empty), on the daemon\'s machine.'),
});
export type BackupBody = z.input<typeof BackupBody>;

export const BackupManifest = z.object({
  format: z.literal('mem-backup'),
  version: z.literal(1),
  memVersion: z.string(),
  schemaVersion: z.number(),
  createdAt: z.string(),
  embedding: z.object({ modelId: z.string(), dimension: z.number() }),
  tables: z.array(z.object({ name: z.string(), rows: z.number() })),
});
export type BackupManifest = z.infer<typeof BackupManifest>;

export const BackupResponse = z.object({
  success: z.literal(true),
  message: z.string(),
  path: z.string(),
  durationMs: z.number(),
  manifest: BackupManifest,
});
export type BackupResponse = z.infer<typeof BackupResponse>;
