import module from 'node:module';
import { join } from 'node:path';
import { resolvePaths } from '../config/paths.js';
import { requireWithCodeCache } from './code-cache.js';
import { earlyAnswer } from './early-answer.js';
import { HOT_BUNDLE } from './hot-bundle.js';
import { HOT_COMMANDS } from './hot-command-index.js';

/*
 * What bin/mem.js runs (dist/cli/launch.cjs). `--version` and `--help` off a terminal are answered here
 * (early-answer.ts); a command line the hot path has (hot-main.ts: save, search, ask, __complete...) runs
 * from one CommonJS file compiled from its V8 code cache; every other one goes to the whole CLI (main.ts,
 * ES modules loaded on demand).
 */

interface HotEntry {
  runHot(argv: readonly string[]): Promise<boolean>;
}

/**
 * Which cache a command line uses: each command compiles other functions, and a cache stores those its
 * first run compiled, so `mem search` keeps its own rather than one `mem --version` wrote.
 */
function cacheSlot(args: readonly string[]): string {
  const word = args.find((arg) => !arg.startsWith('-'));
  return word !== undefined && Object.hasOwn(HOT_COMMANDS, word) ? word.replace(/[^a-z]/g, '') : 'other';
}

function loadHot(bundle: { readonly file: string; readonly hash: string }, argv: readonly string[]): HotEntry {
  const file = join(import.meta.dirname, bundle.file);
  // Node 22.1+ keeps compiled code itself, for every module; with source maps on, require() registers the
  // bundle's map so that stack traces point at the TypeScript.
  // (@types/node 20 does not declare it: Node 20 has none.)
  const { enableCompileCache } = module as { enableCompileCache?: () => unknown };
  if (enableCompileCache !== undefined || process.sourceMapsEnabled) {
    enableCompileCache?.();
    return module.createRequire(file)(file) as HotEntry;
  }
  const prefix = `cli-${bundle.hash}-`;
  const cacheFile = join(resolvePaths().cacheDir, `${prefix}${process.version}-${process.arch}-${cacheSlot(argv.slice(2))}.bin`);
  // Caches of other builds (and temporary files a killed run left) go when this one is written.
  const isStale = (name: string) => name.startsWith('cli-') && (!name.startsWith(prefix) || name.endsWith('.tmp'));
  return requireWithCodeCache(file, { cacheFile, isStale }) as HotEntry;
}

export async function launch(argv: readonly string[] = process.argv): Promise<void> {
  const early = await earlyAnswer(argv.slice(2));
  if (early !== undefined) {
    process.stdout.write(early);
    return;
  }
  if (HOT_BUNDLE !== undefined && (await loadHot(HOT_BUNDLE, argv).runHot(argv))) return;
  const { main } = await import('./main.js');
  await main(argv);
}
