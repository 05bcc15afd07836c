import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, posix, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The dependency rule of STYLE.md, enforced: core knows nothing of HTTP, CLI, LanceDB or Ollama; only
 * store/lancedb imports LanceDB; only config/paths.ts reads the home directory; the CLI reaches the
 * daemon through src/client (serve is the one command that runs it in-process).
 */
const ROOT = join(import.meta.dirname, '..', '..');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : /\.tsx?$/.test(name) ? [path] : [];
  });
}

function imports(path: string): string[] {
  const text = readFileSync(path, 'utf8');
  return [...text.matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/g)].map((match) => match[1] ?? '');
}

/**
 * What loading `path` loads: its static imports and re-exports that survive compilation (`import type` and
 * `export type` are erased; `import()` happens only when the code runs), resolved to repository paths for
 * relative ones and kept as written for packages.
 */
function staticImports(path: string): string[] {
  const text = readFileSync(join(ROOT, path), 'utf8');
  const found = [...text.matchAll(/^(?:import|export)\s+(?!type\b)(?:[^;'"]*?\s+from\s+)?'([^']+)'/gms)].map((match) => match[1] ?? '');
  return found.map((spec) => {
    if (!spec.startsWith('.')) return spec;
    const target = posix.join(posix.dirname(path), spec).replace(/\.js$/, '');
    return [`${target}.ts`, `${target}.tsx`].find((candidate) => all.some((file) => file.path === candidate)) ?? `${target} (unresolved)`;
  });
}

/**
 * Every file and package that loading `entry` loads before any of its code runs. `evaluated` are modules the
 * CLI bundle holds as their values (scripts/bundle-cli.mjs): what they import does not load with them there.
 */
function staticClosure(entry: string, evaluated: readonly string[] = []): Set<string> {
  const seen = new Set<string>([entry]);
  const queue = [entry];
  for (let path = queue.pop(); path !== undefined; path = queue.pop()) {
    if (evaluated.includes(path)) continue;
    for (const target of staticImports(path)) {
      if (seen.has(target)) continue;
      seen.add(target);
      if (target.startsWith('src/') || target.startsWith('daemon/')) queue.push(target);
    }
  }
  return seen;
}

/** The modules scripts/bundle-cli.mjs evaluates at build time (its EVALUATED list). */
function evaluatedAtBuild(): string[] {
  const script = readFileSync(join(ROOT, 'scripts', 'bundle-cli.mjs'), 'utf8');
  const list = /const EVALUATED = \[([^\]]*)\]/.exec(script)?.[1] ?? '';
  return [...list.matchAll(/'([^']+)'/g)].map((match) => match[1] ?? '');
}

const all = [...files(join(ROOT, 'src')), ...files(join(ROOT, 'daemon'))].map((path) => ({ path: relative(ROOT, path), imports: imports(path) }));

describe('architecture', () => {
  // Besides zod, core may use pure text libraries (no I/O): the Porter2 stemmer search compares words with.
  it('core imports only core, errors, providers/spec, jobs, zod and the stemmer', () => {
    for (const file of all.filter((f) => f.path.startsWith('src/core/'))) {
      for (const spec of file.imports) {
        // Relative imports resolved from the file, so core/query/*.ts may use ../types.js but not ../../store/.
        const target = spec.startsWith('.') ? posix.join(posix.dirname(file.path.split(sep).join('/')), spec) : spec;
        const allowed =
          spec.startsWith('node:') ||
          spec === 'zod' ||
          spec === 'wink-porter2-stemmer' ||
          target.startsWith('src/core/') ||
          /^src\/(errors|providers\/spec|providers\/embed-many|jobs\/job-queue)\.js$/.test(target);
        expect(allowed, `${file.path} imports ${spec}`).toBe(true);
      }
    }
  });

  it('only store/lancedb touches LanceDB and Arrow', () => {
    for (const file of all) {
      const usesLance = file.imports.some((spec) => spec.startsWith('@lancedb/') || spec === 'apache-arrow');
      if (usesLance) expect(file.path, file.path).toMatch(/^src\/store\/lancedb\//);
    }
  });

  it('only providers/ollama imports the ollama client', () => {
    for (const file of all) if (file.imports.includes('ollama')) expect(file.path).toMatch(/^src\/providers\/ollama\//);
  });

  it('routes never reach the store or model adapters directly', () => {
    for (const file of all.filter((f) => f.path.startsWith('daemon/routes/'))) {
      for (const spec of file.imports) expect(spec, `${file.path} imports ${spec}`).not.toMatch(/store\/|providers\/(ollama|builtin)/);
    }
  });

  it('the CLI uses the client, not core or the store', () => {
    for (const file of all.filter((f) => f.path.startsWith('src/cli/'))) {
      for (const spec of file.imports) expect(spec, `${file.path} imports ${spec}`).not.toMatch(/\/(core|store|providers)\//);
    }
  });

  it('registering the commands loads commander and light modules only: what a command runs with loads when it runs', () => {
    // `mem --version` loads main.ts alone; `--help` and completions load the program and no more: the
    // contract and config schema (zod), the credential store (conf), the HTTP client, Ink, the MCP SDK and
    // the importers are imported by the actions that need them (issue 21).
    expect([...staticClosure('src/cli/main.ts')].sort()).toEqual(['node:fs', 'node:path', 'node:url', 'src/cli/early-answer.ts', 'src/cli/main.ts', 'src/version.ts']);
    // What bin/mem.js loads before any command: the launcher, which finds the command word without
    // commander; the code cache and the paths load only for the hot file.
    expect([...staticClosure('src/cli/launch.ts', evaluatedAtBuild())].sort()).toEqual([
      'node:fs',
      'node:module',
      'node:path',
      'node:url',
      'src/cli/command-word.ts',
      'src/cli/early-answer.ts',
      'src/cli/hot-bundle.ts',
      'src/cli/hot-command-index.ts',
      'src/cli/launch.ts',
      'src/cli/root-options.ts',
      'src/version.ts',
    ]);
    // The hot path's one file (hot-main.ts) holds its commands and their way to the daemon, not the whole
    // program, and not what only a slow path needs (scripts/bundle-cli.mjs builds those apart, and fails
    // the build if they get in).
    const hot = [...staticClosure('src/cli/hot-main.ts', evaluatedAtBuild())];
    expect(hot.filter((path) => path.includes('(unresolved)'))).toEqual([]);
    expect(hot).toContain('src/cli/commands/memories.ts');
    for (const path of hot) {
      expect(path, `src/cli/hot-main.ts loads ${path}`).not.toMatch(/^(zod|conf|ink|react|src\/cli\/program\.ts|src\/api\/contract\.ts|src\/config\/(schema|load-config)\.ts|src\/(tui|mcp|store)\/.*|daemon\/.*)$/);
    }
    // `mem --help` (not on a terminal) loads the help text the build evaluated, nothing else.
    expect([...staticClosure('src/cli/root-help.ts', evaluatedAtBuild())]).toEqual(['src/cli/root-help.ts']);
    // Every command but the hot ones runs in the whole program (createProgram): its registrations load
    // commander and light modules only.
    const closure = [...staticClosure('src/cli/program.ts')];
    const packages = closure.filter((spec) => !spec.startsWith('src/') && !spec.startsWith('daemon/') && !spec.startsWith('node:'));
    expect(packages).toEqual(['commander']);
    const files = closure.filter((spec) => spec.startsWith('src/') || spec.startsWith('daemon/'));
    expect(files.filter((path) => path.includes('(unresolved)'))).toEqual([]);
    for (const path of files) {
      expect(path, `src/cli/program.ts loads ${path} on start`).not.toMatch(
        /^(daemon\/|src\/(api\/contract|client\/|config\/|tui\/|mcp\/|ingest\/|store\/|jobs\/|cli\/importers\/|cli\/commands\/config-actions))/,
      );
    }
    // The walk itself must see what it guards: the command modules are in, and a lazily loaded one is not.
    expect(files).toContain('src/cli/commands/memories.ts');
    expect(files).toContain('src/api/vocabulary.ts');
    expect(files).not.toContain('src/cli/commands/config-actions.ts');
    // Running a command loads the root and the table of hot commands (the build evaluates it), no command
    // module: the hot command's group, or the whole program, is imported once the command line is read.
    const running = [...staticClosure('src/cli/program-for.ts', evaluatedAtBuild())];
    expect(running.filter((path) => path.startsWith('src/cli/commands/') || path === 'src/cli/program.ts')).toEqual([]);
    expect(running).toContain('src/cli/hot-command-index.ts');
  });

  it('the way of a command to the daemon loads no zod: config defaults from the build, answers checked by build-time checks', () => {
    // What `mem search`, `mem save --turbo` and `mem __complete` load after the program (src/cli/context.ts),
    // as the bundle runs it; zod, the contract and the config schema load only on the slow paths, by import().
    const evaluated = evaluatedAtBuild();
    expect(evaluated).toEqual(['src/config/client-defaults.ts', 'src/config/value-checks.ts', 'src/cli/root-help.ts', 'src/cli/hot-command-index.ts', 'src/cli/root-options.ts', 'src/mcp/initialize-answers.ts']);
    for (const entry of ['src/config/client-settings.ts', 'src/client/discovery.ts', 'src/config/credentials.ts', 'src/client/http-client.ts']) {
      const closure = [...staticClosure(entry, evaluated)];
      expect(closure.filter((path) => path.includes('(unresolved)'))).toEqual([]);
      for (const path of closure) expect(path, `${entry} loads ${path}`).not.toMatch(/^(zod|conf|src\/api\/contract\.ts|src\/config\/(schema|load-config)\.ts)$/);
    }
    // The walk sees what it guards: without the build's evaluation, the defaults would bring the schema and zod.
    expect(staticClosure('src/config/client-settings.ts').has('zod')).toBe(true);
    expect(staticClosure('src/client/http-client.ts', evaluated)).toContain('src/client/parse-response.ts');
  });

  it('`mem mcp` answers initialize before it loads the MCP SDK or zod (src/mcp/early-initialize.ts)', () => {
    const evaluated = evaluatedAtBuild();
    const closure = [...staticClosure('src/mcp/stdio.ts', evaluated)];
    expect(closure.filter((path) => path.includes('(unresolved)'))).toEqual([]);
    for (const path of closure) expect(path, `src/mcp/stdio.ts loads ${path}`).not.toMatch(/^(zod|@modelcontextprotocol\/.*|src\/api\/contract\.ts|src\/mcp\/(server|tools)\.ts)$/);
    // Without the build's evaluation, the answers would bring the SDK.
    expect([...staticClosure('src/mcp/stdio.ts')].some((path) => path.startsWith('@modelcontextprotocol/'))).toBe(true);
  });

  it('only config/paths.ts decides where files live', () => {
    for (const file of all) {
      const text = readFileSync(join(ROOT, file.path), 'utf8');
      if (/homedir\(\)|XDG_[A-Z]+_HOME|process\.env\.MEM_HOME/.test(text)) expect(file.path).toBe('src/config/paths.ts');
    }
  });
});
