import { Type, type Data, type Table as ArrowTable, type Vector } from 'apache-arrow';
import type { MemoryField, MemoryView } from '../../core/query/fields.js';
import { json } from './rows.js';

/**
 * Reading whole columns out of an Arrow result, for queries that touch every matching memory (filters on
 * metadata, aggregations). Arrow's per-value accessors (`vector.get(i)`, row proxies) cost microseconds a
 * value, several times the work itself at 100k rows, so values are read straight out of each chunk's
 * buffers into the result objects, without intermediate arrays. Any layout not handled here falls back to
 * the accessors.
 */

/** The memories column holding each field. */
export const MEMORY_COLUMNS: Readonly<Record<MemoryField, string>> = {
  id: 'id',
  title: 'title',
  content: 'content',
  description: 'description',
  author: 'author',
  tags: 'tags',
  metadata: 'metadata',
  spaceId: 'space_id',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
};

function isNull(data: Data, index: number): boolean {
  if (data.nullCount === 0 || !data.nullBitmap || data.nullBitmap.length === 0) return false;
  const bit = data.offset + index;
  return ((data.nullBitmap[bit >> 3] ?? 0) & (1 << (bit & 7))) === 0;
}

const decoder = new TextDecoder();

/**
 * The i-th string of a utf8 chunk (null when null). When the chunk is pure ASCII (ids, most JSON), one
 * decode of the whole value buffer plus slicing by offsets is several times cheaper than a decode per value.
 */
function stringReader(data: Data): (index: number) => string | null {
  const offsets = data.valueOffsets as Int32Array | BigInt64Array;
  const values = data.values as Uint8Array;
  const start = Number(offsets[0]);
  const end = Number(offsets[data.length]);
  const bytes = values.subarray(start, end);
  const text = decoder.decode(bytes);
  if (text.length === bytes.length) {
    return (index) => (isNull(data, index) ? null : text.slice(Number(offsets[index]) - start, Number(offsets[index + 1]) - start));
  }
  const buffer = Buffer.from(values.buffer, values.byteOffset, values.byteLength);
  return (index) => (isNull(data, index) ? null : buffer.toString('utf8', Number(offsets[index]), Number(offsets[index + 1])));
}

const isUtf8 = (data: Data) => data.typeId === Type.Utf8 || data.typeId === Type.LargeUtf8;

/** Calls `each(row, value)` for every value of a utf8 column, in row order. */
function forEachString(vector: Vector, each: (row: number, value: string | null) => void): void {
  let row = 0;
  for (const data of vector.data) {
    if (isUtf8(data) && data.length > 0) {
      const read = stringReader(data);
      for (let i = 0; i < data.length; i++) each(row++, read(i));
    } else {
      for (let i = 0; i < data.length; i++, row++) {
        const value: unknown = vector.get(row);
        each(row, typeof value === 'string' ? value : null);
      }
    }
  }
}

/** Calls `each(row, value)` for every value of a float64 column, in row order (null for NULL). */
function forEachNumber(vector: Vector, each: (row: number, value: number | null) => void): void {
  let row = 0;
  for (const data of vector.data) {
    if (data.typeId === Type.Float && data.values instanceof Float64Array) {
      const values = data.values;
      for (let i = 0; i < data.length; i++) each(row++, isNull(data, i) ? null : (values[i] as number));
    } else {
      for (let i = 0; i < data.length; i++, row++) {
        const value: unknown = vector.get(row);
        each(row, value === null || value === undefined ? null : Number(value));
      }
    }
  }
}

/** Calls `each(row, items)` for every list of a list<utf8> column; null items are skipped, a null list is empty. */
function forEachStringList(vector: Vector, each: (row: number, items: string[]) => void): void {
  let row = 0;
  for (const data of vector.data) {
    const child = data.children[0];
    if (data.typeId === Type.List && child && isUtf8(child)) {
      const listOffsets = data.valueOffsets as Int32Array | BigInt64Array;
      const read = child.length > 0 ? stringReader(child) : () => null;
      for (let i = 0; i < data.length; i++) {
        const items: string[] = [];
        if (!isNull(data, i)) {
          for (let j = Number(listOffsets[i]); j < Number(listOffsets[i + 1]); j++) {
            const item = read(j);
            if (item !== null) items.push(item);
          }
        }
        each(row++, items);
      }
    } else {
      for (let i = 0; i < data.length; i++, row++) {
        const value = vector.get(row) as { toArray?: () => unknown[] } | null;
        each(row, value?.toArray ? Array.from(value.toArray()).filter((item): item is string => typeof item === 'string') : []);
      }
    }
  }
}

function metadataObject(text: string | null): Record<string, unknown> {
  if (text === null || text === '{}') return {};
  const parsed = json<unknown>(text, {});
  return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
}

/** The requested fields of every row of a memories query result (id always). */
export function readViews(table: ArrowTable, fields: readonly MemoryField[]): MemoryView[] {
  // An empty result may come back without columns at all.
  if (table.numRows === 0) return [];
  const column = (field: MemoryField): Vector => {
    const vector = table.getChild(MEMORY_COLUMNS[field]);
    if (!vector) throw new Error(`the result has no ${MEMORY_COLUMNS[field]} column`);
    return vector;
  };
  const views = new Array<Record<string, unknown>>(table.numRows);
  forEachString(column('id'), (row, id) => {
    views[row] = { id: id ?? '' };
  });
  for (const field of new Set(fields)) {
    if (field === 'id') continue;
    const vector = column(field);
    if (field === 'tags') forEachStringList(vector, (row, tags) => ((views[row] as Record<string, unknown>).tags = tags));
    else if (field === 'metadata') forEachString(vector, (row, text) => ((views[row] as Record<string, unknown>).metadata = metadataObject(text)));
    else if (field === 'createdAt') forEachNumber(vector, (row, value) => ((views[row] as Record<string, unknown>).createdAt = value ?? 0));
    else if (field === 'updatedAt') forEachNumber(vector, (row, value) => ((views[row] as Record<string, unknown>).updatedAt = value));
    else forEachString(vector, (row, value) => ((views[row] as Record<string, unknown>)[field] = value ?? ''));
  }
  return views as unknown as MemoryView[];
}
