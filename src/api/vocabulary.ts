/**
 * The fixed value sets of the API (enumerations its schemas accept), with no zod: the CLI offers them as
 * choices and completions when it registers its commands, before (and often without) loading the contract
 * whose schemas are built from them.
 */
export { ENTITY_TYPES, FACT_CATEGORIES } from '../providers/spec.js';
export { DEFAULT_WATCH_GLOB } from '../core/watch/glob.js';

export const HISTOGRAM_FIELDS = ['createdAt', 'updatedAt'] as const;
export const HISTOGRAM_INTERVALS = ['day', 'week', 'month', 'year'] as const;
export const USAGE_PERIODS = ['day', 'week', 'month', 'all'] as const;
export const USAGE_BREAKDOWNS = ['endpoint', 'day', 'key'] as const;
export const ANSWER_TIERS = ['default', 'fast', 'smart'] as const;
export const REMIND_TIMEFRAMES = ['today', 'week', 'month', 'all'] as const;
export const ENTITY_SORTS = ['mentions', 'name', 'recent'] as const;
