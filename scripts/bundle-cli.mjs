/**
 * `npm run build` (after tsc): bundles the CLI into dist/cli/main.js plus chunks that load on demand, so that
 * a command reads one file for what every command needs (commander and the registrations) and one or two
 * chunks for what it does itself (the HTTP client and its schemas, Ink, the MCP SDK...). Node spends most
 * of a short command's time resolving and compiling modules, not running them (bench/README.md, "CLI").
 *
 * The daemon is not bundled: `mem serve` imports dist/daemon/ (the tsc output), whose embedding and
 * extraction workers are files found next to the modules that spawn them. src/errors.ts stays a shared
 * file for the same reason: an error the in-process daemon throws must be the CLI's MemError for
 * `instanceof`, so both import the one module dist/src/errors.js.
 *
 * Minified, with linked source maps: `NODE_OPTIONS=--enable-source-maps mem ...` gives stack traces in the
 * TypeScript sources.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const outdir = join(root, 'dist', 'cli');
/** Loaded from the tsc output (see above), by their path relative to dist/cli/. */
const SHARED = [join(root, 'daemon'), join(root, 'src', 'errors.ts')];

rmSync(outdir, { recursive: true, force: true });
const result = await build({
  absWorkingDir: root,
  entryPoints: { main: 'src/cli/main.ts' },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  minify: true,
  sourcemap: 'linked',
  metafile: true,
  logLevel: 'warning',
  // Native or optional packages: found in node_modules at run time (react-devtools-core is an optional
  // peer of Ink that Ink imports only when DEV is set).
  external: ['@lancedb/lancedb', '@napi-rs/keyring', 'react-devtools-core'],
  // Bundled CommonJS packages (commander, conf's dependencies) call require() for Node's built-ins.
  banner: { js: "import{createRequire as __memRequire}from'node:module';const require=__memRequire(import.meta.url);" },
  plugins: [
    {
      // zod's `z.locales` namespace holds its ~40 translations of error messages: 260 KB of the ~450 KB of
      // zod that every command reading a daemon response compiles. mem sets no locale (zod's English
      // default is imported directly by its schemas), so the namespace keeps English only.
      name: 'zod-english-only',
      setup(pluginBuild) {
        pluginBuild.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
          /[\\/]zod[\\/]v4[\\/](classic|core|mini)$/.test(args.resolveDir) ? { path: 'zod-locales', namespace: 'zod-english-only' } : undefined,
        );
        pluginBuild.onLoad({ filter: /.*/, namespace: 'zod-english-only' }, () => ({
          contents: "export { default as en } from 'zod/v4/locales/en.js';",
          resolveDir: root,
        }));
      },
    },
    {
      name: 'shared-with-daemon',
      setup(pluginBuild) {
        pluginBuild.onResolve({ filter: /^\.{1,2}\// }, (args) => {
          const absolute = resolve(args.resolveDir, args.path.replace(/\.js$/, '.ts'));
          const shared = SHARED.find((path) => absolute === path || absolute.startsWith(`${path}/`));
          if (!shared) return undefined;
          const built = relative(root, absolute).replace(/\.tsx?$/, '.js');
          return { path: `../${built}`, external: true };
        });
      },
    },
  ],
});
// `node scripts/bundle-cli.mjs --meta`: what each chunk holds, for a look by hand (not part of the package).
if (process.argv.includes('--meta')) writeFileSync(join(root, 'cli-meta.json'), JSON.stringify(result.metafile));
