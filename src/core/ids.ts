import { randomBytes } from 'node:crypto';

/**
 * Identifiers are a type prefix plus a ULID (26 Crockford base-32 characters: 48 bits of milliseconds, then
 * 80 random bits), so ids sort by creation time and a malformed one is recognisable without a lookup.
 * Memory ids look like `mem_01JD3V6Q8X4Z5C2B7N9M0K1H2G`.
 */
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

export const ID_PREFIXES = {
  memory: 'mem',
  pendingSave: 'pnd',
  job: 'job',
  account: 'usr',
  key: 'key',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

export function ulid(now: number = Date.now()): string {
  let time = '';
  let t = now;
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32] + time;
    t = Math.floor(t / 32);
  }
  const bytes = randomBytes(16);
  let random = '';
  for (let i = 0; i < 16; i++) random += CROCKFORD[(bytes[i] ?? 0) % 32];
  return time + random;
}

export function newId(kind: IdKind, now?: number): string {
  return `${ID_PREFIXES[kind]}_${ulid(now)}`;
}

const PATTERNS: Record<IdKind, RegExp> = Object.fromEntries(
  Object.entries(ID_PREFIXES).map(([kind, prefix]) => [kind, new RegExp(`^${prefix}_[0-9A-HJKMNP-TV-Z]{26}$`)]),
) as Record<IdKind, RegExp>;

export function isId(kind: IdKind, value: string): boolean {
  return PATTERNS[kind].test(value);
}

export const MEMORY_ID_PATTERN = PATTERNS.memory.source;
