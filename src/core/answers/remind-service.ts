import type { MemoryService } from '../memory-service.js';
import type { MemoryRecord } from '../types.js';
import { reminderReason } from './reasons.js';

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
    const { hits, total } = await this.memories.search(accountId, {
      query: input.context,
      limit: input.limit,
      offset: 0,
      threshold: input.threshold,
      hybrid: true,
      filter: after === undefined ? {} : { after },
    });
    return {
      reminders: hits.map((hit) => ({
        memory: hit.memory,
        relevance: hit.score,
        reason: reminderReason(input.context, hit.memory, hit.score, now),
      })),
      totalFound: total,
    };
  }
}
