import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatRecords } from '../../src/cli/importers/chat.js';
import { jsonRecords } from '../../src/cli/importers/json.js';
import { markdownRecords } from '../../src/cli/importers/markdown.js';
import { isoTime } from '../../src/cli/importers/record.js';

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mem-importers-'));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

describe('isoTime', () => {
  it('reads ISO dates and times, epoch seconds and milliseconds; nothing else', () => {
    expect(isoTime('2021-04-05')).toBe('2021-04-05');
    expect(isoTime('2021-04-05T10:00:00+02:00')).toBe('2021-04-05T08:00:00.000Z');
    expect(isoTime(1672596060)).toBe('2023-01-01T18:01:00.000Z');
    expect(isoTime(1672596060000)).toBe('2023-01-01T18:01:00.000Z');
    expect(isoTime('1672596060')).toBe('2023-01-01T18:01:00.000Z');
    expect(isoTime('next tuesday')).toBeUndefined();
    expect(isoTime(undefined)).toBeUndefined();
    expect(isoTime('')).toBeUndefined();
  });
});

describe('markdown', () => {
  it('front matter gives title, tags and date; other keys go to metadata; hidden and empty files are skipped', async () => {
    const notes = join(dir, 'notes');
    mkdirSync(join(notes, 'sub'), { recursive: true });
    mkdirSync(join(notes, '.obsidian'));
    writeFileSync(join(notes, 'a.md'), '---\ntitle: "Trip: Rome"\ntags: travel, italy\ncreated: 2020-01-02T03:04:05Z\nmood: happy\n---\n\nBody text.\n');
    writeFileSync(join(notes, 'sub', 'b.markdown'), '# Heading title\n\nMore text.');
    writeFileSync(join(notes, 'c.md'), 'no heading, no front matter');
    writeFileSync(join(notes, 'empty.md'), '---\ntitle: x\n---\n');
    writeFileSync(join(notes, '.obsidian', 'x.md'), 'hidden');
    writeFileSync(join(notes, 'note.txt'), 'not markdown');
    utimesSync(join(notes, 'c.md'), new Date('2019-09-09T09:09:09Z'), new Date('2019-09-09T09:09:09Z'));
    const records = await markdownRecords(notes);
    expect(records.map((entry) => entry.origin)).toEqual(['a.md', 'c.md', 'sub/b.markdown']);
    expect(records[0]?.record).toEqual({
      type: 'memory',
      content: 'Body text.',
      title: 'Trip: Rome',
      tags: ['travel', 'italy'],
      metadata: { mood: 'happy', file: 'a.md' },
      createdAt: '2020-01-02T03:04:05.000Z',
    });
    expect(records[1]?.record).toMatchObject({ title: 'c', createdAt: '2019-09-09T09:09:09.000Z', tags: [] });
    expect(records[2]?.record).toMatchObject({ title: 'Heading title', metadata: { file: 'sub/b.markdown' } });
  });

  it('refuses a path that is not a directory', async () => {
    await expect(markdownRecords(file('single.md', '# x'))).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
  });
});

describe('json', () => {
  it('passes items on as memory lines, reading their dates', async () => {
    const records = await jsonRecords(
      file('items.json', JSON.stringify([{ content: 'a', tags: ['t'], createdAt: 1672596060, extra: 1 }, 'plain text', { title: 'no content' }])),
    );
    expect(records.map((entry) => entry.record)).toEqual([
      { type: 'memory', content: 'a', tags: ['t'], createdAt: '2023-01-01T18:01:00.000Z' },
      { type: 'memory', content: 'plain text' },
      { type: 'memory', content: undefined, title: 'no content' },
    ]);
    await expect(jsonRecords(file('object.json', '{"content":"x"}'))).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
  });
});

describe('chat', () => {
  it('one memory per message without conversation ids', async () => {
    const records = await chatRecords(
      file('chat.json', JSON.stringify([{ role: 'User', content: 'Hi there', timestamp: '2023-01-01T18:00:00Z' }, { role: 'assistant', content: '  ' }])),
    );
    expect(records.map((entry) => entry.record)).toEqual([
      { type: 'memory', content: 'Hi there', tags: ['chat', 'user'], metadata: { source: 'chat', role: 'user' }, author: 'user', createdAt: '2023-01-01T18:00:00.000Z' },
    ]);
  });

  it('saves each message with its speaker as author and the message before it as context', async () => {
    const records = await chatRecords(
      file(
        'dialog.json',
        JSON.stringify([
          { speaker: 'Melanie', text: 'How often do you run?', timestamp: '2023-05-08T13:56:00Z' },
          { role: 'user', name: 'Caroline', content: 'Three times a week.', timestamp: '2023-05-08T13:57:00Z' },
          { role: 'assistant', content: 'Noted.', timestamp: '2023-05-08T13:58:00Z' },
        ]),
      ),
    );
    expect(records.map((entry) => [entry.record.author, entry.record.context, entry.record.content])).toEqual([
      ['Melanie', undefined, 'How often do you run?'],
      ['Caroline', 'Melanie: How often do you run?', 'Three times a week.'],
      ['assistant', 'Caroline: Three times a week.', 'Noted.'],
    ]);
  });

  it('one memory per conversation when messages name one: a transcript in time order, cut at 90 KB', async () => {
    const long = 'x'.repeat(50 * 1024);
    const records = await chatRecords(
      file(
        'threads.json',
        JSON.stringify({
          messages: [
            { role: 'assistant', content: 'Day 1: Alfama.', timestamp: '2023-05-01T09:01:00Z', conversation_id: 'c1' },
            { role: 'user', content: 'Plan the Lisbon trip', timestamp: '2023-05-01T09:00:00Z', conversation_id: 'c1' },
            { role: 'user', content: long, timestamp: '2023-06-01T09:00:00Z', threadId: 7 },
            { role: 'assistant', content: long, timestamp: '2023-06-01T09:05:00Z', threadId: 7 },
          ],
        }),
      ),
    );
    expect(records[0]?.record).toEqual({
      type: 'memory',
      content: 'user: Plan the Lisbon trip\n\nassistant: Day 1: Alfama.',
      title: 'Chat: Plan the Lisbon trip',
      tags: ['chat', 'user', 'assistant'],
      metadata: { source: 'chat', conversationId: 'c1', messages: 2, firstMessageAt: '2023-05-01T09:00:00.000Z', lastMessageAt: '2023-05-01T09:01:00.000Z' },
      createdAt: '2023-05-01T09:00:00.000Z',
    });
    expect(records.slice(1).map((entry) => [entry.record.title, entry.record.createdAt, (entry.record.metadata as { part: number }).part])).toEqual([
      [`Chat: ${'x'.repeat(67)}... (part 1 of 2)`, '2023-06-01T09:00:00.000Z', 1],
      [`Chat: ${'x'.repeat(67)}... (part 2 of 2)`, '2023-06-01T09:05:00.000Z', 2],
    ]);
  });
});
