import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileRules, isIgnoredName } from '../../src/core/watch/file-rules.js';
import { compileGlob, DEFAULT_WATCH_GLOB, GlobError, matchesGlob } from '../../src/core/watch/glob.js';

describe('watch globs', () => {
  it('matches like a shell glob with ** across directories', () => {
    const cases: [string, string, boolean][] = [
      ['a.md', DEFAULT_WATCH_GLOB, true],
      ['x/y/a.md', DEFAULT_WATCH_GLOB, true],
      ['README.MD', DEFAULT_WATCH_GLOB, true],
      ['a.pdf', DEFAULT_WATCH_GLOB, true],
      ['a.png', DEFAULT_WATCH_GLOB, false],
      ['a.md.bak', DEFAULT_WATCH_GLOB, false],
      ['notes/a.txt', '*.txt', false],
      ['a.txt', '*.txt', true],
      ['notes/a.txt', 'notes/*.txt', true],
      ['notes/sub/a.txt', 'notes/**', true],
      ['a/c', 'a/**/c', true],
      ['a/b/c', 'a/**/c', true],
      ['a-b (1)+.md', '**/*.md', true],
      ['a.md', '?.md', true],
      ['é.md', '?.md', true],
      ['ab.md', '?.md', false],
      ['a.md', '[ab].md', true],
      ['c.md', '[!ab].md', true],
      ['a.md', '[!ab].md', false],
      ['x/a.html', '**/*.{md,{txt,html}}', true],
      ['x/a.htm', '**/*.{md,{txt,html}}', false],
      ['a.md', './*.md', true],
      ['x/a.md', 'x**.md', false],
      ['a*b.md', 'a\\*b.md', true],
      ['axb.md', 'a\\*b.md', false],
    ];
    for (const [path, glob, expected] of cases) expect(matchesGlob(path, glob), `${path} ~ ${glob}`).toBe(expected);
  });

  it('refuses malformed globs', () => {
    expect(() => compileGlob('**/*.{md')).toThrow(GlobError);
    expect(() => compileGlob('a\\')).toThrow(GlobError);
    expect(() => compileGlob('')).toThrow(GlobError);
  });
});

describe('watch file rules', () => {
  it('ignores hidden, editor and temporary files', () => {
    for (const name of ['.hidden.md', '.git', 'notes.md~', 'notes.md.swp', 'a.swx', 'a.SWO', 'x.tmp', '#notes.md#', 'f.pdf.crdownload']) {
      expect(isIgnoredName(name), name).toBe(true);
    }
    for (const name of ['notes.md', 'tmp.md', 'swp-notes.md', 'a~b.md']) expect(isIgnoredName(name), name).toBe(false);
  });

  it('applies the glob below the root, dot-directories at any depth, and the size limit', () => {
    const root = join('/data', 'notes');
    const rules = new FileRules(root, DEFAULT_WATCH_GLOB, 100);
    expect(rules.acceptsFile(join(root, 'a', 'b.md'), 100)).toBe(true);
    expect(rules.acceptsFile(join(root, 'a', 'b.md'), 101)).toBe(false);
    expect(rules.acceptsFile(join(root, '.obsidian', 'b.md'), 1)).toBe(false);
    expect(rules.ignoresPath(join(root, '.obsidian'))).toBe(true);
    expect(rules.ignoresPath(root)).toBe(false);
    expect(rules.matchesPath(join('/data', 'other.md'))).toBe(false);
    expect(new FileRules(join('/home', '.hidden-root'), '**', 10).matchesPath(join('/home', '.hidden-root', 'a.md'))).toBe(true);
  });
});
