import type { FileRules } from './file-rules.js';

/** The folder-watching port: src/watch implements it with chokidar. */

export interface FileEvent {
  readonly type: 'add' | 'change' | 'unlink';
  /** Absolute path of the file. */
  readonly path: string;
}

export interface ListedFile {
  readonly path: string;
  readonly size: number;
  readonly mtimeMs: number;
}

export interface FolderWatch {
  close(): Promise<void>;
}

export interface FolderWatching {
  /**
   * Follows a folder: files the rules accept by name and glob are reported when added, changed (once their
   * writes have settled) or removed. Files already there are not reported. Resolves once the watcher is ready.
   */
  watch(rules: FileRules, handlers: { onEvent(event: FileEvent): void; onError(error: unknown): void }): Promise<FolderWatch>;
  /** Every file below the folder the rules accept (size included), for the first scan and after a restart. */
  list(rules: FileRules): Promise<ListedFile[]>;
}
