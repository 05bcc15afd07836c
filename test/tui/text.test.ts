import type { Key } from 'ink';
import { describe, expect, it } from 'vitest';
import { cell, strengthBar, truncate, windowStart } from '../../src/tui/format.js';
import { highlightEntities } from '../../src/tui/highlight.js';
import { editText } from '../../src/tui/text-edit.js';

const key = (overrides: Partial<Key> = {}): Key =>
  ({
    upArrow: false,
    downArrow: false,
    leftArrow: false,
    rightArrow: false,
    pageDown: false,
    pageUp: false,
    home: false,
    end: false,
    return: false,
    escape: false,
    ctrl: false,
    shift: false,
    tab: false,
    backspace: false,
    delete: false,
    meta: false,
    super: false,
    hyper: false,
    capsLock: false,
    numLock: false,
    ...overrides,
  }) as Key;

describe('highlightEntities', () => {
  const entities = [
    { id: 'acme', name: 'Acme Corp', aliases: ['Acme'] },
    { id: 'sarah', name: 'Sarah Chen', aliases: ['Sarah'] },
  ];

  it('marks names and aliases as whole words, case-insensitively, the longest name first', () => {
    expect(highlightEntities('Met sarah chen of ACME CORP; Acme again, not Acmeville.', entities)).toEqual([
      { text: 'Met ' },
      { text: 'sarah chen', entityId: 'sarah' },
      { text: ' of ' },
      { text: 'ACME CORP', entityId: 'acme' },
      { text: '; ' },
      { text: 'Acme', entityId: 'acme' },
      { text: ' again, not Acmeville.' },
    ]);
  });

  it('treats regular-expression characters in names literally', () => {
    expect(highlightEntities('C++ (beta) and C', [{ id: 'cpp', name: 'C++ (beta)', aliases: [] }])).toEqual([
      { text: 'C++ (beta)', entityId: 'cpp' },
      { text: ' and C' },
    ]);
  });

  it('gives the text unchanged without entities', () => {
    expect(highlightEntities('plain', [])).toEqual([{ text: 'plain' }]);
    expect(highlightEntities('', entities)).toEqual([]);
  });
});

describe('editText', () => {
  it('types printable keys and pastes, drops control characters, leaves other keys to the view', () => {
    expect(editText('ab', 'c', key())).toBe('abc');
    expect(editText('', 'two\r\nlines', key())).toBe('two lines');
    expect(editText('ab', '\t', key({ tab: true }))).toBeUndefined();
    expect(editText('ab', '', key({ upArrow: true }))).toBeUndefined();
    expect(editText('ab', '\r', key({ return: true }))).toBeUndefined();
    expect(editText('ab', 'r', key({ ctrl: true }))).toBeUndefined();
  });

  it('Backspace (sent as DEL by most terminals) erases a character, Ctrl-W a word, Ctrl-U everything', () => {
    expect(editText('abc', '', key({ delete: true }))).toBe('ab');
    expect(editText('abc', '', key({ backspace: true }))).toBe('ab');
    expect(editText('naïve 👍', '', key({ delete: true }))).toBe('naïve ');
    expect(editText('sarah chen', 'w', key({ ctrl: true }))).toBe('sarah ');
    expect(editText('sarah chen', 'u', key({ ctrl: true }))).toBe('');
  });
});

describe('format', () => {
  it('fits text to a cell and draws strength bars', () => {
    expect(truncate('a  long\nname', 6)).toBe('a lon…');
    expect(cell('abc', 5)).toBe('abc  ');
    expect(strengthBar(0.64)).toBe('█████░░░ 0.64');
    expect(strengthBar(1.4)).toBe('████████ 1.00');
    expect(strengthBar(0)).toBe('░░░░░░░░ 0.00');
  });

  it('scrolls a window to keep the selection in view', () => {
    expect(windowStart(5, 4, 10)).toBe(0);
    expect(windowStart(100, 0, 10)).toBe(0);
    expect(windowStart(100, 50, 10)).toBe(45);
    expect(windowStart(100, 99, 10)).toBe(90);
  });
});
