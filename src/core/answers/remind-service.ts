import type { MemoryService } from '../memory-service.js';
import type { MemoryRecord } from '../types.js';
import { reminderReason } from './reasons.js';
import { sharedNames } from './text.js';

export const TIMEFRAMES = ['today', 'week', 'month', 'all'] as const;
export type Timeframe = (typeof TIMEFRAMES)[number];

export interface RemindInput {
  readonly context: string;
  readonly limit: number;
  readonly threshold: number;
  readonly timeframe: Timeframe;
}

export interface Reminder {
  readonly memory: MemoryRecord;
  readonly relevance: number;
  readonly reason: string;
}

const DAY = 86_400_000;
/** Candidates considered per remind: the best by hybrid search, then re-scored with shared names. */
const CANDIDATES = 50;

/**
 * A memory that names the same people, companies or places as the context is relevant to it whatever its
 * wording (the built-in embedder scores "Preparing the quarterly review with Acme" against "Acme Q3
 * roadmap meeting" at 0.03): each shared name is evidence that counts like a noisy-OR term of 0.6, so one
 * shared name reaches the default threshold 0.6 and two reach 0.84.
 */
export function remindRelevance(score: number, sharedNameCount: number): number {
  const fromNames = 1 - 0.4 ** sharedNameCount;
  return Math.round((1 - (1 - score) * (1 - fromNames)) * 10_000) / 10_000;
}

/**
 * The earliest createdAt a timeframe admits: today = since midnight UTC, week = the last 7 days, month =
 * the last 30 days, all = no bound.
 */
export function timeframeStart(timeframe: Timeframe, now: number): number | undefined {
  switch (timeframe) {
    case 'today':
      return now - (now % DAY);
    case 'week':
      return now - 7 * DAY;
    case 'month':
      return now - 30 * DAY;
    case 'all':
      return undefined;
  }
}

/** Remind: memories relevant to what the user is doing now, each with the evidence for why. */
export class RemindService {
  private readonly now: () => number;

  constructor(
    private readonly memories: MemoryService,
    now?: () => number,
  ) {
    this.now = now ?? Date.now;
  }

  async remind(accountId: string, input: RemindInput): Promise<{ reminders: Reminder[]; totalFound: number }> {
    const now = this.now();
    const after = timeframeStart(input.timeframe, now);
    // Hybrid: the names and terms of the context matter as much as its meaning.
    const { hits } = await this.memories.search(accountId, {
      query: input.context,
      limit: CANDIDATES,
      offset: 0,
      threshold: 0,
      hybrid: true,
      filter: after === undefined ? {} : { after },
    });
    const ranked = hits
      .map((hit) => ({ hit, relevance: remindRelevance(hit.score, sharedNames(input.context, `${hit.memory.title} ${hit.memory.content}`).length) }))
      .filter((entry) => entry.relevance >= input.threshold)
      .sort((a, b) => b.relevance - a.relevance);
    return {
      reminders: ranked.slice(0, input.limit).map(({ hit, relevance }) => ({
        memory: hit.memory,
        relevance,
        reason: reminderReason(input.context, hit.memory, relevance, now),
      })),
      totalFound: ranked.length,
    };
  }
}
