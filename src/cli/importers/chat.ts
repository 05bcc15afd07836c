import { readFile } from 'node:fs/promises';
import { MemError } from '../../errors.js';
import { isoTime, type SourcedRecord } from './record.js';

/** Fields that name a message's conversation, in the spellings exports use. */
const CONVERSATION_KEYS = ['conversationId', 'conversation_id', 'conversation', 'threadId', 'thread_id'];
/** A grouped conversation is cut into memories of at most this many bytes (the content limit is 100 KB). */
const MAX_PART_BYTES = 90 * 1024;

/** Fields that name who wrote a message, when the export has more than a role. */
const SPEAKER_KEYS = ['speaker', 'author', 'name', 'sender', 'from'];
/** The message a reply answers is indexed with it (its context) up to this many characters. */
const MAX_CONTEXT_CHARS = 1000;
/** The import format's author limit (one line, 200 characters). */
const MAX_AUTHOR_CHARS = 200;

interface Message {
  readonly role: string;
  /** Who wrote it: a speaker's name when the export names one, else its role. */
  readonly speaker: string;
  readonly content: string;
  readonly createdAt: string | undefined;
  readonly conversation: string | undefined;
  readonly position: number;
}

function read(value: unknown, position: number): Message | null {
  if (!value || typeof value !== 'object') return null;
  const raw = value as Record<string, unknown>;
  const text = typeof raw.content === 'string' ? raw.content : raw.text;
  const content = typeof text === 'string' ? text.trim() : '';
  if (!content) return null;
  const conversation = CONVERSATION_KEYS.map((key) => raw[key]).find((id) => typeof id === 'string' || typeof id === 'number');
  const role = typeof raw.role === 'string' && raw.role.trim() ? raw.role.trim().toLowerCase() : 'unknown';
  const named = SPEAKER_KEYS.map((key) => raw[key]).find((name): name is string => typeof name === 'string' && name.trim() !== '');
  return {
    role,
    speaker: (named ?? role).replace(/\s+/g, ' ').trim().slice(0, MAX_AUTHOR_CHARS),
    content,
    createdAt: isoTime(raw.timestamp ?? raw.createdAt ?? raw.time),
    conversation: conversation === undefined ? undefined : String(conversation),
    position,
  };
}

const byTime = (a: Message, b: Message) => (a.createdAt ?? '').localeCompare(b.createdAt ?? '') || a.position - b.position;

/**
 * `mem import --from chat FILE`: a chat export, a JSON array of {role, content, timestamp} messages (or
 * {messages: [...]}; `text` for content and a speaker's name in speaker, author, name, sender or from are
 * read too). Without a conversation id, every message is a memory of its own (tags chat and its role,
 * createdAt its timestamp, author its speaker or role, context the message before it): search finds the
 * very message. When messages carry a conversation id
 * (conversationId, conversation_id, conversation, threadId or thread_id), each conversation becomes one
 * memory, a transcript of `role: text` paragraphs in time order (cut into parts of at most 90 KB), dated by
 * its first message and tagged chat plus its roles: a conversation is read as a whole.
 */
export async function chatRecords(file: string): Promise<SourcedRecord[]> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    throw new MemError('VALIDATION_ERROR', `${file} is not a JSON file: ${(error as Error).message}`);
  }
  const list = Array.isArray(parsed) ? parsed : (parsed as { messages?: unknown } | null)?.messages;
  if (!Array.isArray(list)) throw new MemError('VALIDATION_ERROR', `${file} must hold a JSON array of {role, content, timestamp} messages.`);
  const messages = list.map(read).filter((message): message is Message => message !== null);
  if (messages.length === 0) throw new MemError('VALIDATION_ERROR', `${file} has no messages with text.`);

  if (!messages.some((message) => message.conversation !== undefined)) {
    // Each message is saved with who wrote it (author) and the message before it (context, "speaker:
    // text"), as search uses them: a reply ("Three times a week") is found through the question it answers,
    // and a question about what someone said favours their own messages.
    const ordered = [...messages].sort(byTime);
    return ordered.map((message, index) => {
      const previous = ordered[index - 1];
      const context = previous ? `${previous.speaker}: ${previous.content}`.slice(-MAX_CONTEXT_CHARS) : '';
      return {
        record: {
          type: 'memory',
          content: message.content,
          tags: ['chat', message.role],
          metadata: { source: 'chat', role: message.role },
          author: message.speaker,
          ...(context ? { context } : {}),
          ...(message.createdAt ? { createdAt: message.createdAt } : {}),
        },
        origin: `message ${message.position}`,
      };
    });
  }

  const conversations = new Map<string, Message[]>();
  for (const message of messages) {
    const id = message.conversation ?? '(none)';
    conversations.set(id, [...(conversations.get(id) ?? []), message]);
  }
  const records: SourcedRecord[] = [];
  for (const [id, thread] of conversations) {
    thread.sort(byTime);
    const opening = (thread.find((message) => message.role === 'user') ?? thread[0])?.content.split('\n')[0] ?? id;
    const parts: Message[][] = [[]];
    let bytes = 0;
    for (const message of thread) {
      const size = Buffer.byteLength(`${message.speaker}: ${message.content}\n\n`, 'utf8');
      if (bytes + size > MAX_PART_BYTES && (parts[parts.length - 1]?.length ?? 0) > 0) {
        parts.push([]);
        bytes = 0;
      }
      parts[parts.length - 1]?.push(message);
      bytes += size;
    }
    parts.forEach((part, index) => {
      const first = part[0];
      const last = part[part.length - 1];
      const title = `Chat: ${opening.length > 70 ? `${opening.slice(0, 67).trimEnd()}...` : opening}${parts.length > 1 ? ` (part ${index + 1} of ${parts.length})` : ''}`;
      records.push({
        record: {
          type: 'memory',
          // A single message over the limit is still cut by the daemon's content limit: it fails alone.
          content: part.map((message) => `${message.speaker}: ${message.content}`).join('\n\n'),
          title,
          tags: ['chat', ...new Set(part.map((message) => message.role))],
          metadata: {
            source: 'chat',
            conversationId: id,
            messages: part.length,
            ...(parts.length > 1 ? { part: index + 1, parts: parts.length } : {}),
            ...(first?.createdAt ? { firstMessageAt: first.createdAt } : {}),
            ...(last?.createdAt ? { lastMessageAt: last.createdAt } : {}),
          },
          ...(first?.createdAt ? { createdAt: first.createdAt } : {}),
        },
        origin: `conversation ${id}${parts.length > 1 ? ` part ${index + 1}` : ''}`,
      });
    });
  }
  return records;
}
