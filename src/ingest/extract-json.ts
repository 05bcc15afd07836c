import type { Extraction } from './extraction.js';
import { oneLine } from './text.js';

/**
 * JSON becomes indented `key: value` lines (a YAML-like outline): searchable words without braces and quotes,
 * and still readable. The title is the top-level object's title, name or headline when it is a string.
 */

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

function isScalar(value: Json): value is string | number | boolean | null {
  return value === null || typeof value !== 'object';
}

function scalar(value: string | number | boolean | null): string {
  return value === null ? 'null' : String(value);
}

function renderLines(value: Json, depth: number): string[] {
  const pad = '  '.repeat(depth);
  if (isScalar(value)) return [`${pad}${scalar(value)}`];
  if (Array.isArray(value)) {
    return value.flatMap((item) => {
      if (isScalar(item)) return [`${pad}- ${scalar(item)}`];
      const inner = renderLines(item, depth + 1);
      if (inner.length === 0) return [`${pad}- ${Array.isArray(item) ? '[]' : '{}'}`];
      // The first line of a nested block shares the dash: "- name: x" rather than "-" then "  name: x".
      const [first = '', ...rest] = inner;
      return [`${pad}- ${first.trimStart()}`, ...rest];
    });
  }
  return Object.entries(value).flatMap(([key, item]) => {
    if (isScalar(item)) return [`${pad}${key}: ${scalar(item)}`];
    if (Array.isArray(item) && item.length > 0 && item.every(isScalar)) {
      return [`${pad}${key}: ${item.map((entry) => scalar(entry as string | number | boolean | null)).join(', ')}`];
    }
    const inner = renderLines(item, depth + 1);
    return inner.length === 0 ? [`${pad}${key}: ${Array.isArray(item) ? '[]' : '{}'}`] : [`${pad}${key}:`, ...inner];
  });
}

export function jsonToText(value: unknown): string {
  return renderLines(value as Json, 0).join('\n');
}

/** Throws a SyntaxError (the caller words it) when `source` is not JSON. */
export function extractJson(source: string): Extraction {
  const value = JSON.parse(source.replace(/^\uFEFF/, '')) as Json;
  let title: string | null = null;
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    for (const key of ['title', 'name', 'headline']) {
      const candidate = value[key];
      if (typeof candidate === 'string' && oneLine(candidate)) {
        title = oneLine(candidate);
        break;
      }
    }
  }
  return { text: jsonToText(value).trim(), title, metadata: {} };
}
