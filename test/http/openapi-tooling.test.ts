import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATION_IDS } from '../../daemon/openapi.js';
import { ROOT } from '../helpers/cli.js';
import { closeTestEmbedder, createTestApp, type TestApp } from '../helpers/test-app.js';

/** The served document as client generators see it: linted with Redocly's recommended rules, and a generated client type-checks. */

let t: TestApp;
let dir: string;
let documentPath: string;
let document: Record<string, unknown>;

beforeAll(async () => {
  t = await createTestApp();
  document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
  dir = mkdtempSync(join(tmpdir(), 'mem-openapi-'));
  documentPath = join(dir, 'openapi.json');
  writeFileSync(documentPath, JSON.stringify(document));
});

afterAll(async () => {
  await t.close();
  await closeTestEmbedder();
  rmSync(dir, { recursive: true, force: true });
});

interface LintProblem {
  readonly ruleId: string;
  readonly severity: 'error' | 'warn';
  readonly location: { pointer: string }[];
}

describe('the OpenAPI document', () => {
  it('passes Redocly lint (recommended rules): no errors; the one warning is /health having no 4xx, which it cannot answer', async () => {
    const lint = await execa(process.execPath, [join(ROOT, 'node_modules/@redocly/cli/bin/cli.js'), 'lint', documentPath, '--format', 'json'], {
      reject: false,
      env: { REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
      timeout: 60_000,
    });
    const report = JSON.parse(lint.stdout) as { totals: { errors: number; warnings: number }; problems: LintProblem[] };
    const problems = report.problems.map((problem) => `${problem.severity} ${problem.ruleId} ${problem.location[0]?.pointer}`);
    expect(problems).toEqual(['warn operation-4xx-response #/paths/~1health/get/responses']);
    expect(report.totals.errors).toBe(0);
  }, 90_000);

  it('has servers and a unique, stable operationId on every operation', () => {
    expect(document.servers).toEqual([expect.objectContaining({ url: expect.stringMatching(/^http:\/\//) })]);
    const ids: string[] = [];
    for (const [path, methods] of Object.entries(document.paths as Record<string, Record<string, { operationId?: string }>>)) {
      for (const [method, operation] of Object.entries(methods)) {
        const fastifyPath = path.replace(/\{(\w+)\}/g, ':$1');
        expect(operation.operationId, `${method} ${path}`).toBe(OPERATION_IDS[`${method.toUpperCase()} ${fastifyPath}`]);
        ids.push(operation.operationId as string);
      }
    }
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(expect.arrayContaining(['saveMemory', 'searchMemories', 'deleteMemory', 'regenerateKey']));
  });

  it('generates a client (openapi-typescript) that type-checks against the operations', async () => {
    const generated = astToString(await openapiTS(JSON.parse(JSON.stringify(document))));
    writeFileSync(join(dir, 'api.d.ts'), generated);
    // A client written against the generated types: a wrong field or status would not compile.
    writeFileSync(
      join(dir, 'use.ts'),
      [
        "import type { operations, paths } from './api.js';",
        "type SaveBody = NonNullable<operations['saveMemory']['requestBody']>['content']['application/json'];",
        "const body: SaveBody = { content: 'Met Sarah', tags: ['work'], async: true };",
        "type Saved = operations['saveMemory']['responses'][201]['content']['application/json'];",
        "type Failed = operations['deleteMemory']['responses'][404]['content']['application/json'];",
        "type Search = paths['/v1/search']['post']['responses'][200]['content']['application/json'];",
        "export function read(saved: Saved, failed: Failed, search: Search): string[] {",
        "  const id = 'documentId' in saved ? saved.documentId : saved.pendingId;",
        "  return [id, failed.error, failed.message, ...search.results.map((result) => result.id), body.content ?? ''];",
        '}',
        "// @ts-expect-error: the spec has no 202 any more",
        "export type Accepted = operations['saveMemory']['responses'][202];",
      ].join('\n'),
    );
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { strict: true, noEmit: true, module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', skipLibCheck: false, types: [] }, files: ['use.ts', 'api.d.ts'] }),
    );
    const check = await execa(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(dir, 'tsconfig.json')], { reject: false, timeout: 60_000 });
    expect(check.stdout + check.stderr).toBe('');
    expect(check.exitCode).toBe(0);
  }, 90_000);
});
