import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createProgram } from '../../src/cli/program.js';
import { CONFIG_KEYS, CONFIG_SCHEMA } from '../../src/config/schema.js';
import { MAX_BULK_DELETE_IDS, MAX_FILTER_BYTES, MAX_JSON_DEPTH, MAX_METADATA_BYTES, MAX_TAG_CHARS, MAX_TAGS } from '../../src/api/limits.js';
import { ERROR_TABLE } from '../../src/errors.js';

const README = readFileSync(join(import.meta.dirname, '..', '..', 'README.md'), 'utf8');

describe('README agrees with the code', () => {
  it('shows the two commands first', () => {
    const quickStart = README.indexOf('npm install\nnpm start');
    expect(quickStart).toBeGreaterThan(0);
    expect(quickStart).toBeLessThan(README.indexOf('## The CLI'));
    expect(README).toContain('npm test');
  });

  it('has one row per error code with its status and exit code', () => {
    for (const [code, row] of Object.entries(ERROR_TABLE)) {
      expect(README, code).toContain(`| \`${code}\` | ${row.status} | ${row.exitCode} | ${row.description} |`);
    }
  });

  it('documents every config key and its environment variable', () => {
    for (const key of CONFIG_KEYS) {
      expect(README, key).toContain(`| \`${key}\` |`);
      const spec = CONFIG_SCHEMA[key];
      if ('env' in spec && spec.env) expect(README, spec.env).toContain(`\`${spec.env}\``);
    }
  });

  it('documents every CLI command', () => {
    for (const command of createProgram().commands) {
      expect(README, command.name()).toContain(`mem ${command.name()}`);
    }
  });

  it('states the limits of src/api/limits.ts in its Limits table', () => {
    const table = README.slice(README.indexOf('### Limits'), README.indexOf('### Errors'));
    const en = (value: number) => value.toLocaleString('en-US');
    expect(table).toContain(`| JSON nesting | ${MAX_JSON_DEPTH} levels`);
    expect(table).toContain(`| \`metadata\` | ${en(MAX_METADATA_BYTES)} bytes as JSON`);
    expect(table).toContain(`16,384 bytes as JSON (and the nesting limit)`.replace('16,384', en(MAX_FILTER_BYTES)));
    expect(table).toContain(`| \`tags\` | ${MAX_TAGS} per memory, ${MAX_TAG_CHARS} characters each`);
    expect(table).toContain(`| \`ids\` of \`POST /v1/memories/delete\` | 1-${en(MAX_BULK_DELETE_IDS)}`);
  });
});
