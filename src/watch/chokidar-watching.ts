import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { watch } from 'chokidar';
import type { FileRules } from '../core/watch/file-rules.js';
import type { FileEvent, FolderWatch, FolderWatching, ListedFile } from '../core/watch/types.js';

export interface ChokidarWatchingOptions {
  /**
   * A file's size must stay the same this long before its add or change is reported (chokidar's
   * awaitWriteFinish): a file still being written is never read half-way.
   */
  readonly stabilityThresholdMs?: number;
  /** How often the size is checked meanwhile. */
  readonly pollIntervalMs?: number;
}

const DEFAULT_STABILITY_MS = 300;
const DEFAULT_POLL_MS = 50;

/**
 * The folder-watching port with chokidar 5. Hidden and editor files are filtered by name before chokidar
 * even stats them (a hidden directory is not descended), other files by the watch's glob once chokidar
 * knows they are files; the size limit is checked when a file is read. Symbolic links are not followed, so
 * a watch never leaves its folder and cannot loop.
 */
export function createChokidarWatching(options: ChokidarWatchingOptions = {}): FolderWatching {
  const awaitWriteFinish = {
    stabilityThreshold: options.stabilityThresholdMs ?? DEFAULT_STABILITY_MS,
    pollInterval: options.pollIntervalMs ?? DEFAULT_POLL_MS,
  };
  return {
    async watch(rules, handlers): Promise<FolderWatch> {
      const watcher = watch(rules.root, {
        ignoreInitial: true,
        followSymlinks: false,
        ignorePermissionErrors: true,
        awaitWriteFinish,
        ignored: (path, stats) => rules.ignoresPath(path) || (stats?.isFile() === true && !rules.matchesPath(path)),
      });
      const report = (type: FileEvent['type']) => (path: string) => {
        // Unlinks always go through: the watch decides whether the path had a memory.
        if (type === 'unlink' || rules.matchesPath(path)) handlers.onEvent({ type, path });
      };
      watcher.on('add', report('add'));
      watcher.on('change', report('change'));
      watcher.on('unlink', report('unlink'));
      await new Promise<void>((resolve, reject) => {
        const failed = (error: unknown) => {
          void watcher.close();
          reject(error instanceof Error ? error : new Error(String(error)));
        };
        watcher.once('error', failed);
        watcher.once('ready', () => {
          watcher.off('error', failed);
          watcher.on('error', (error) => handlers.onError(error));
          resolve();
        });
      });
      return { close: () => watcher.close() };
    },

    async list(rules): Promise<ListedFile[]> {
      const files: ListedFile[] = [];
      const visit = async (dir: string): Promise<void> => {
        let entries;
        try {
          entries = await readdir(dir, { withFileTypes: true });
        } catch (error) {
          // An unreadable subdirectory is skipped (as chokidar does); the folder itself must be readable.
          if (dir === rules.root) throw error;
          return;
        }
        for (const entry of entries) {
          const path = join(dir, entry.name);
          if (rules.ignoresPath(path)) continue;
          if (entry.isDirectory()) await visit(path);
          else if (entry.isFile() && rules.matchesPath(path)) {
            const info = await stat(path).catch(() => null);
            if (info && rules.acceptsFile(path, info.size)) files.push({ path, size: info.size, mtimeMs: info.mtimeMs });
          }
        }
      };
      await visit(rules.root);
      return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    },
  };
}
