/**
 * What kind of answer a question asks for, read from its form alone: when / who / where / how many, a list
 * ("What desserts has Priya made?"), a named thing ("Which city...?"), two things at once, or what holds today
 * ("now"). The built-in answerer (builtin-language-model.ts) and its typed spans (typed-spans.ts) read these.
 */
import { isStopword, properNouns } from '../../core/answers/text.js';

export type QuestionKind = 'when' | 'who' | 'where' | 'quantity' | 'other';

/** A sentence that asks rather than tells. */
export function isQuestion(sentence: string): boolean {
  return /\?["'”’)\]]*\s*$/u.test(sentence);
}

/**
 * Questions that ask for several things: plural wh-phrases ("What desserts has...", "What are some..."),
 * "both", "all", "names of". Multi-hop questions mostly look like this; their answer spans several memories.
 */
export function isListQuestion(question: string): boolean {
  const q = question.trim().toLowerCase();
  return (
    /^(?:what|which) (?:are|were|have|has)\b/.test(q) ||
    /\b(?:both|all the|some|names of|kinds of|types of|what \w+s (?:has|have|did|does|do))\b/.test(q) ||
    /^(?:what|which) \w+(?:ies|s) (?:has|have|did|does|do|are|were)\b/.test(q) ||
    // A plural head of two or three words, or with its own modifier, asked in the perfect: what has piled
    // up over time ("What board games has Nate played?", "What events for veterans has John joined?").
    /^(?:what|which) (?!(?:kind|type|sort) of\b)(?:[\w-]+ ){1,2}[\w-]+[^s\W]s (?:has|have)\b/.test(q) ||
    /^(?:what|which) [\w-]+[^s\W]s (?:for|of|in|at|with|about) (?:[\w'-]+ ){1,3}(?:has|have)\b/.test(q)
  );
}

/** The names a question gives (people, places, things), possessives dropped: "Priya's" -> "priya". */
export function questionNamesOf(question: string): string[] {
  return [...new Set(properNouns(question).map((name) => name.replace(/['’]s$/u, '').toLowerCase()))];
}

/** A question that asks whether: it opens with its verb ("Did Melanie make the bowl?", "Is Oscar her pet?"). */
export const YES_NO_QUESTION = /^\s*(?:do|does|did|is|are|was|were|has|have|had|can|could|will|would|should)\b/iu;

/** A question that offers its answers ("...a national park or a theme park?"): no yes or no answers it. */
export const CHOICE = /\bor\b/iu;

/** A question for a reason. */
export const WHY_QUESTION = /^\s*why\b/iu;

/** A question for a thing: "what" or "which", perhaps after a preposition ("In what way..."). */
export const WHAT_QUESTION = /^(?:(?:in|at|to|from|for|on|with|about)\s+)?(?:what|which)\b/iu;

/** Things people name (a book's title, a city), asked for as "what book" or "which city". */
const NAMED_THINGS = 'country|city|state|town|team|company|band|artist|singer|author|book|novel|movie|film|show|series|game|song|album|restaurant|store|shop|brand|language|school|university|college|club|app|website|podcast|name';

/** "What books / which song / what films": works, which a name after "by" made rather than names. */
export const WORKS_QUESTION = /^(?:what|which) (?:\w+ )?(?:books?|novels?|songs?|albums?|movies?|films?|shows?|series|games?|podcasts?|plays?|poems?|paintings?)\b/iu;

/** "What book" or "which cities" (one modifier allowed: "what European countries"), singular or plural. */
const NAMED_THING_RE = new RegExp(`^(?:in |at |to |from )?(?:what|which) (?:\\w+ )?(?:${NAMED_THINGS.replace(/y(?=\||$)/gu, '(?:y|ies)')})(?:e?s)?\\b`);

/**
 * "What book is Dan reading?", "Which cities did they visit?", "What is the name of...?": a name or title
 * answers.
 */
export function asksForNamedThing(question: string): boolean {
  const q = question.trim().toLowerCase();
  return NAMED_THING_RE.test(q) || /^what (?:is|was|are|were) (?:the )?names? of\b/.test(q) || /^(?:what|which)\b.*\bnames\?*$/.test(q);
}

/**
 * Questions that ask two things ("When ... and what about?", "Which museum ... and which room ...?") are
 * answered with the whole sentence. Only a question word that opens a coordinated clause asks a second
 * thing: one that opens a subordinate clause ("Who supports Priya when she has a bad day?", "...to show
 * how to fix...") is part of the one question.
 */
export function isCompound(question: string): boolean {
  return /(?:,|;|\band\b|\bor\b)\s+(?:when|who|whom|where|what|which|why|how)\b/.test(question.toLowerCase());
}

/** A question about what holds today ("Who waters the plants now?", "Where does Tom currently work?"). */
export const NOW_QUESTION = /\b(?:now|currently|current|these days|nowadays|at the moment|anymore)\b/iu;

export function questionKind(question: string): QuestionKind {
  const q = question.trim().toLowerCase();
  if (/^(?:when|what (?:date|day|time|year|month)|which (?:year|month|day|date)|how long ago)\b/.test(q) || /\bwhen (?:did|does|do|is|was|will|are|were)\b/.test(q)) {
    return 'when';
  }
  if (/^(?:who|whom|whose)\b/.test(q)) return 'who';
  if (/^where\b/.test(q)) return 'where';
  if (/\bhow (?:many|much|often|long|old)\b/.test(q)) return 'quantity';
  return 'other';
}

/**
 * The question with a short form of a person's name written out: "What did Mel and her kids make?" over a
 * conversation with Melanie asks about Melanie. A capitalised word of three letters or more is a short form
 * when exactly one other name the memories give starts with it ("Mel" -> "Melanie"); when the memories also
 * name the short form itself, only the name of someone who speaks in them counts ("Thanks, Mel!" addresses
 * Melanie; a note about Sam and one about Samantha are about two people).
 */
export function withFullNames(question: string, speakers: ReadonlySet<string>, known: ReadonlySet<string>): string {
  return question.replace(/\b(\p{Lu}[\p{Ll}]{2,})(?=['’]s\b|\b)/gu, (word) => {
    // A question word or another stopword is capitalised because it opens the question ("What" is not
    // short for "WhatsApp").
    if (speakers.has(word) || isStopword(word.toLowerCase())) return word;
    const pool = known.has(word) ? speakers : new Set([...speakers, ...known]);
    const longer = [...pool].filter((name) => name.length > word.length && name.startsWith(word) && !/\s/u.test(name));
    return longer.length === 1 ? (longer[0] ?? word) : word;
  });
}
