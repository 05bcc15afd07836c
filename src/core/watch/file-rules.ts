import { isAbsolute, relative, sep } from 'node:path';
import { compileGlob } from './glob.js';

/**
 * Which files of a watched folder become memories. Editors and downloaders write temporary files beside the
 * real ones (vim `.notes.md.swp`, emacs `#notes.md#` and `notes.md~`, `*.tmp`, partial downloads); hidden
 * files and directories (`.git`, `.obsidian`) hold tool state, not notes. None of them is ever read.
 */
const IGNORED_SUFFIXES = ['~', '.tmp', '.temp', '.swp', '.swo', '.swx', '.swn', '.part', '.crdownload', '.download'];

export function isIgnoredName(name: string): boolean {
  if (name.startsWith('.')) return true;
  if (name.startsWith('#') && name.endsWith('#')) return true;
  const lower = name.toLowerCase();
  return IGNORED_SUFFIXES.some((suffix) => lower.endsWith(suffix));
}

/** The path below the root with `/` separators, or null when it is the root itself or outside it. */
export function relativeWithin(root: string, path: string): string | null {
  const rel = relative(root, path);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) return null;
  return rel.split(sep).join('/');
}

/** What a watch takes: its glob, the size limit, and the ignore rules above. */
export class FileRules {
  private readonly glob: RegExp;

  constructor(
    readonly root: string,
    glob: string,
    readonly maxBytes: number,
  ) {
    this.glob = compileGlob(glob);
  }

  /** Ignored by name alone, at any depth: for directories too (a hidden directory is not descended). */
  ignoresPath(path: string): boolean {
    const rel = relativeWithin(this.root, path);
    if (rel === null) return false;
    return rel.split('/').some(isIgnoredName);
  }

  /** A regular file of this size at this path becomes a memory. */
  acceptsFile(path: string, size: number): boolean {
    const rel = relativeWithin(this.root, path);
    return rel !== null && !this.ignoresPath(path) && this.glob.test(rel) && size <= this.maxBytes;
  }

  /** The name and glob allow the path (the size is checked when the file is read). */
  matchesPath(path: string): boolean {
    const rel = relativeWithin(this.root, path);
    return rel !== null && !this.ignoresPath(path) && this.glob.test(rel);
  }
}
