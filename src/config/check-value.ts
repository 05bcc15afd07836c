/**
 * A config key's schema as a plain check (value-checks.ts reads it from the zod schema at build time).
 * `checkedValue` accepts a value only when zod certainly accepts it too, and gives what zod would give;
 * anything it is unsure of (a number written `0x10`, a URL with spaces around it, a key left to zod) it
 * leaves to zod, whose answer and error messages stay the only ones (client-settings.ts).
 */
export type ValueCheck =
  | {
      readonly kind: 'number';
      readonly coerce: boolean;
      readonly int: boolean;
      readonly min?: number;
      readonly minInclusive?: boolean;
      readonly max?: number;
      readonly maxInclusive?: boolean;
    }
  | { readonly kind: 'string'; readonly minLength: number; readonly url: boolean }
  | { readonly kind: 'enum'; readonly values: readonly string[] }
  | { readonly kind: 'bool' }
  | { readonly kind: 'zod' };

/** Decimal numbers only: Number() also reads '', ' 1', '0x10' and '1e3', which zod's coercion accepts too. */
const DECIMAL = /^-?\d{1,15}(\.\d{1,15})?$/;

/** The value zod would give for `raw`, or undefined when this check cannot tell. */
export function checkedValue(check: ValueCheck, raw: unknown): { readonly value: unknown } | undefined {
  switch (check.kind) {
    case 'number': {
      const number = typeof raw === 'number' ? raw : check.coerce && typeof raw === 'string' && DECIMAL.test(raw) ? Number(raw) : undefined;
      if (number === undefined || !Number.isFinite(number)) return undefined;
      if (check.int && !Number.isSafeInteger(number)) return undefined;
      if (check.min !== undefined && !(check.minInclusive ? number >= check.min : number > check.min)) return undefined;
      if (check.max !== undefined && !(check.maxInclusive ? number <= check.max : number < check.max)) return undefined;
      return { value: number };
    }
    case 'string': {
      if (typeof raw !== 'string' || raw.length < check.minLength) return undefined;
      // zod trims a URL and drops tabs and newlines from it: only a URL it keeps as written is taken here.
      if (check.url && (raw !== raw.trim() || /[\t\n\r]/.test(raw) || !URL.canParse(raw))) return undefined;
      return { value: raw };
    }
    case 'enum':
      return typeof raw === 'string' && check.values.includes(raw) ? { value: raw } : undefined;
    case 'bool':
      if (typeof raw === 'boolean') return { value: raw };
      if (raw === 'true' || raw === '1') return { value: true };
      if (raw === 'false' || raw === '0') return { value: false };
      return undefined;
    case 'zod':
      return undefined;
  }
}
