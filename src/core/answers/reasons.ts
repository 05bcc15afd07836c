import { contentWords, findExplicitDate, findRelativeDate, isStopword, sharedNames, stem, words } from './text.js';

const DAY = 86_400_000;
const DUE_WORDS = /\b(?:due|deadline|by|before|until|expires?|renew(?:al)?|submit|pay)\b/i;

function list(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

/** "Due this week", "Due tomorrow", "Was due 3 March 2026", "Mentions Tuesday at 9am": from the memory's dates. */
export function dateReason(content: string, savedAt: number, now: number): string | undefined {
  const phrase = findRelativeDate(content) ?? findExplicitDate(content);
  if (!phrase) return undefined;
  const due = DUE_WORDS.test(content);
  const lower = phrase.toLowerCase();
  const fresh = now - savedAt < 7 * DAY;
  if (/^(?:today|tonight|this morning)$/.test(lower)) return fresh && now - savedAt < DAY ? (due ? 'Due today' : 'Happening today') : undefined;
  if (lower === 'tomorrow') return now - savedAt < DAY ? (due ? 'Due tomorrow' : 'Happening tomorrow') : undefined;
  const weekly = /\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|this week|next week|end of (?:the|this) week|weekend)\b/.test(lower);
  if (weekly && fresh) return due ? 'Due this week' : `Coming up this week (${phrase})`;
  if (/\b(?:this month|end of (?:the|this) month)\b/.test(lower) && now - savedAt < 31 * DAY) return due ? 'Due this month' : 'Coming up this month';
  const when = Date.parse(phrase.replace(/(\d)(?:st|nd|rd|th)\b/, '$1'));
  if (Number.isFinite(when) && /\d{4}/.test(phrase)) {
    const days = (when - now) / DAY;
    if (due && days < -1) return `Was due ${phrase}`;
    if (days >= -1 && days <= 7) return due ? `Due this week (${phrase})` : `Coming up this week (${phrase})`;
    if (days > 7 && days <= 31) return due ? `Due this month (${phrase})` : `Coming up this month (${phrase})`;
  }
  return due ? `Due ${phrase}` : `Mentions ${phrase}`;
}

/** Topic words the memory shares with the context, as the memory writes them (names excluded). */
export function sharedTopicWords(context: string, text: string, exclude: readonly string[] = []): string[] {
  const ours = new Set(contentWords(context));
  const skip = new Set(exclude.flatMap((name) => words(name)));
  const found: string[] = [];
  for (const word of words(text)) {
    if (word.length < 3 || isStopword(word) || skip.has(word) || /^\d+$/.test(word)) continue;
    if (ours.has(stem(word)) && !found.includes(word)) found.push(word);
  }
  return found;
}

/**
 * Why a memory is worth recalling in this context, from evidence: the names both mention, the date it
 * carries, the topic words both use; only when none of these exist, how close in meaning it is.
 */
export function reminderReason(
  context: string,
  memory: { readonly title: string; readonly content: string; readonly createdAt: number },
  relevance: number,
  now: number,
): string {
  const text = `${memory.title}. ${memory.content}`;
  const parts: string[] = [];
  const names = sharedNames(context, text).slice(0, 3);
  // "who" or "which" would need to know what the name is; this wording fits people, companies and places.
  if (names.length === 1) parts.push(`Mentions ${names[0]}, also named in your context`);
  else if (names.length > 1) parts.push(`Mentions ${list(names)}, also named in your context`);
  const date = dateReason(memory.content, memory.createdAt, now);
  if (date) parts.push(date);
  if (parts.length < 2) {
    const topic = sharedTopicWords(context, text, names).slice(0, 3);
    if (topic.length > 0) parts.push(`${parts.length === 0 ? 'Same topic' : 'same topic'}: ${list(topic.map((word) => `"${word}"`))}`);
  }
  if (parts.length === 0) return `Close in meaning to your context (relevance ${relevance.toFixed(2)}), though it shares no names or words with it.`;
  const [first, ...rest] = parts;
  return `${[first, ...rest.map((part) => part.charAt(0).toLowerCase() + part.slice(1))].join('; ')}.`;
}
