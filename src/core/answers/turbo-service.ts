import type { MemoryService } from '../memory-service.js';
import type { MemoryRecord } from '../types.js';
import type { AskResult, AskService } from './ask-service.js';

export interface TurboSaveInput {
  readonly content: string;
  readonly title?: string | undefined;
  readonly tags?: readonly string[] | undefined;
  readonly spaceId?: string | undefined;
  readonly context?: string | undefined;
  readonly author?: string | undefined;
}

/** Milliseconds since `started` (performance.now()), to 0.1 ms. */
function elapsed(started: number): number {
  return Math.round((performance.now() - started) * 10) / 10;
}

/**
 * Turbo mode: the fast path. Save stores and embeds, marked turbo (no entity, fact or graph extraction,
 * which enrichment can run later). Ask retrieves by meaning only (no keyword pass) and answers with the
 * fast tier. Both report processingTime in milliseconds, measured inside the daemon.
 */
export class TurboService {
  constructor(
    private readonly memories: MemoryService,
    private readonly asker: AskService,
  ) {}

  async save(accountId: string, input: TurboSaveInput): Promise<{ memory: MemoryRecord; processingTime: number }> {
    const started = performance.now();
    const memory = await this.memories.save(accountId, { ...input, turbo: true });
    return { memory, processingTime: elapsed(started) };
  }

  async ask(accountId: string, input: { query: string; limit: number }): Promise<AskResult & { processingTime: number }> {
    const started = performance.now();
    const result = await this.asker.ask(accountId, { query: input.query, limit: input.limit, filter: {}, tier: 'fast', hybrid: true });
    return { ...result, processingTime: elapsed(started) };
  }
}
