import { readFile } from 'node:fs/promises';
import { MemError } from '../../errors.js';
import { isoTime, type SourcedRecord } from './record.js';

/**
 * `mem import --from json FILE`: a JSON array of {content, title, tags, metadata, createdAt} (description
 * and spaceId too). Items are passed on as they are; the daemon says what is wrong with one that is not
 * valid, by its position.
 */
export async function jsonRecords(file: string): Promise<SourcedRecord[]> {
  let items: unknown;
  try {
    items = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    throw new MemError('VALIDATION_ERROR', `${file} is not a JSON file: ${(error as Error).message}`);
  }
  if (!Array.isArray(items)) {
    throw new MemError('VALIDATION_ERROR', `${file} must hold a JSON array of {content, title, tags, metadata, createdAt}.`);
  }
  return items.map((item, index) => {
    const value: Record<string, unknown> = item && typeof item === 'object' && !Array.isArray(item) ? (item as Record<string, unknown>) : { content: item };
    const createdAt = value.createdAt === undefined ? undefined : (isoTime(value.createdAt) ?? value.createdAt);
    const record: Record<string, unknown> = { type: 'memory', content: value.content };
    for (const key of ['title', 'description', 'tags', 'metadata', 'spaceId'] as const) if (value[key] !== undefined) record[key] = value[key];
    if (createdAt !== undefined) record.createdAt = createdAt;
    return { record, origin: `item ${index}` };
  });
}
