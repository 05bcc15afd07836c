import type { AccountService } from '../src/core/accounts/account-service.js';
import type { RateLimiter } from '../src/core/accounts/rate-limiter.js';
import type { UsageRecorder } from '../src/core/accounts/usage-recorder.js';
import type { DocumentSaves } from '../src/core/ingest/document-saves.js';
import type { IngestService } from '../src/core/ingest/ingest-service.js';
import type { DocumentSource } from '../src/core/ingest/types.js';
import type { AskService } from '../src/core/answers/ask-service.js';
import type { RemindService } from '../src/core/answers/remind-service.js';
import type { TurboService } from '../src/core/answers/turbo-service.js';
import type { AsyncSaves } from '../src/core/async-saves.js';
import type { SaveService } from '../src/core/save-service.js';
import type { AuthService } from '../src/core/auth-service.js';
import type { KnowledgeService } from '../src/core/knowledge/knowledge-service.js';
import type { MemoryService } from '../src/core/memory-service.js';
import type { Storage } from '../src/core/ports.js';
import type { QueryService } from '../src/core/query-service.js';
import type { Reindexer } from '../src/core/reindex.js';
import type { EmbeddingModel } from '../src/providers/spec.js';
import type { WatchService } from '../src/core/watch/watch-service.js';
import type { BackupService } from '../src/core/export/backup-service.js';
import type { ExportService } from '../src/core/export/export-service.js';
import type { ImportService } from '../src/core/export/import-service.js';
import type { Admission } from '../src/core/scheduling/admission.js';
import type { BackgroundPace } from '../src/core/scheduling/background-pace.js';
import type { RequestTimings } from '../src/core/scheduling/request-timings.js';
import type { LoadReport } from './load-monitor.js';

/** Everything the HTTP layer needs, built by create-deps.ts (or by tests with their own pieces). */
export interface AppDeps {
  readonly storage: Storage;
  readonly embedder: EmbeddingModel;
  readonly memories: MemoryService;
  readonly query: QueryService;
  readonly auth: AuthService;
  /** Profile, usage, plan quotas and the owner's user management. */
  readonly accounts: AccountService;
  readonly limiter: RateLimiter;
  readonly recorder: UsageRecorder;
  /** Bulk ingest jobs, URL and file saves. */
  readonly ingest: IngestService;
  readonly documents: DocumentSaves;
  readonly documentSource: DocumentSource;
  readonly asyncSaves: AsyncSaves;
  /** Every write that adds content (save dispatch, update, turbo save, ingest), plan quota first. */
  readonly saves: SaveService;
  readonly reindexer: Reindexer;
  /** Entities, facts and the knowledge graph. */
  readonly knowledge: KnowledgeService;
  /** Ask, remind and turbo (answers from memories). */
  readonly asker: AskService;
  readonly reminder: RemindService;
  readonly turbo: TurboService;
  /** Watched folders (/v1/watches). */
  readonly watches: WatchService;
  /** Export and import in the mem-export format, and backups of the data directory. */
  readonly exporter: ExportService;
  readonly importer: ImportService;
  readonly backups: BackupService;
  /** Admission of requests to their lanes, their timings, and the load figures of GET /v1/status. */
  readonly load: {
    readonly admission: Admission;
    readonly timings: RequestTimings;
    /** The pace of background work, slowed while interactive requests run. */
    readonly pace: BackgroundPace;
    report(): LoadReport;
  };
  /** Runtime facts for GET /v1/status. */
  readonly runtime: {
    readonly startedAt: number;
    readonly dataDir: string;
    readonly ollamaHost: string;
    address(): string;
    checkOllama(): Promise<{ reachable: boolean; models: string[] }>;
    /** Where the data lives (credentials redacted) and what the start-up commit probe found (object stores). */
    readonly storage: {
      readonly uri: string;
      readonly shared: boolean;
      readonly commitProbe: { readonly safe: boolean; readonly ms: number } | null;
    };
  };
  close(): Promise<void>;
}
