// A memory's author (MemoryRecord.author): its limits, shared by the API, the import format and saves.

/** The most characters an author may have; it must also be one line (AUTHOR_PATTERN). */
export const MAX_AUTHOR_CHARS = 200;
export const AUTHOR_PATTERN = /^[^\r\n]*$/;

/** An author as stored: one line, inner whitespace collapsed; '' for none. */
export function normaliseAuthor(author: string | undefined): string {
  return (author ?? '').replace(/\s+/g, ' ').trim();
}
