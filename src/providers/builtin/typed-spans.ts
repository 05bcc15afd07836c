/**
 * The phrase of a line that answers a typed question, as written: for "who" the doer of the asked verb, the
 * holder of the asked role, the line's first name or the tie it names; for "where" a name after a place word
 * or a place given without a name; for "how many/much/long/often" the number with its unit. The built-in
 * answerer (builtin-language-model.ts) chooses the line; these choose the words.
 */
import { contentWords, escapeRegExp, isAuxiliary, isOpener, isStopword, NAME_TITLES, properNouns, stem, termsOf, wordKey } from '../../core/answers/text.js';
import type { QuestionKind } from './question-forms.js';

const NUMBER_WORDS = 'one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|hundred|thousand|once|twice|a couple|a few|several';
/** "Who is the CTO of...", "Who was our landlord": a question for whoever holds a role. */
const ROLE_QUESTION = /^who\s+(?:is|was|are|were)\s+(?:the|a|an|my|our|his|her|their|its)\b/iu;

/** Prepositions that end no unit of a quantity (the stopword list holds the shortest ones). */
const PREPOSITIONS = new Set(['about', 'above', 'across', 'after', 'against', 'along', 'among', 'around', 'before', 'behind', 'below', 'beside', 'between', 'beyond', 'during', 'inside', 'into', 'near', 'onto', 'outside', 'over', 'past', 'per', 'since', 'through', 'throughout', 'toward', 'towards', 'under', 'until', 'upon', 'via', 'with', 'within', 'without']);
const QUANTITY = new RegExp(`(?:\\b(?:${NUMBER_WORDS})\\b|[$€£]?\\b\\d+(?:[.,]\\d+)*(?:%|(?:k|m|bn)\\b)?)(?:\\s+(?:a|per)\\s+\\w+|(?:\\s+[\\p{L}-]+){0,2})`, 'iu');
/** An amount of money: "How much..." (not "how much time") asks for one when a line gives one. */
const MONEY = /[$€£]|\d(?:k|m|bn)\b|\b(?:euros?|dollars?|pounds?|usd|eur|gbp|francs?|yen|rupees?)\b/iu;

/**
 * The phrase that answers a typed question, taken from the best sentence as written: names for who and where
 * (those the question does not already name), a number with its unit for how many/much/long. Undefined when
 * the sentence holds none: the sentence itself is the answer then.
 */
export function answerSpan(kind: QuestionKind, sentence: string, questionNames: ReadonlySet<string>, known: ReadonlySet<string> = new Set(), question = ''): string | undefined {
  if (kind === 'who' || kind === 'where') {
    const asked = (name: string) => questionNames.has(name.toLowerCase()) || [...questionNames].some((q) => q.includes(name.toLowerCase()));
    if (kind === 'where') {
      // Only a name after a place word answers "where" ("from Globex" is an origin, often a company).
      // "Where does Tom work?" asks for a workplace: a name he joined or works for is one too.
      const places = WORK_QUESTION.test(question) ? 'in|at|to|near|around|visit(?:s|ed|ing)?|join(?:s|ed|ing)?|for|with' : 'in|at|to|near|around|visit(?:s|ed|ing)?';
      const placed = properNouns(sentence)
        .filter((name) => !asked(name) && new RegExp(`\\b(?:${places})\\s+(?:(?:the|a|an|my|our|your|his|her|their)\\s+)?${escapeRegExp(name)}`, 'u').test(sentence))
        .map((name) => theNamed(sentence, name));
      return placed.length > 0 ? placed.slice(0, 2).join(', ') : placePhrase(sentence, question);
    }
    // A word the question writes in lower case is no name where a line capitalises it ("Yoga class with
    // Mira" for "Who teaches the yoga class?").
    const common = new Set(writtenWordsAsWritten(question));
    const askedCommon = (name: string) => name.split(/\s+/u).every((word) => common.has(stem(word.toLowerCase())));
    // "Who" asks for the subject: the first name of the sentence (a leading name counts here), or the speaker,
    // with names joined to it by "and" ("Priya and Dan").
    const label = speakerLabel(sentence);
    const text = label ? sentence.slice(sentence.indexOf(':') + 1) : sentence;
    // A title in quotes is what was made, not who made it ("\"Lantern\" by Ada Reyes").
    const quoted = [...text.matchAll(/["“][^"“”]{1,80}["”]/gu)].map((match) => [match.index ?? 0, (match.index ?? 0) + match[0].length] as const);
    const leading = text.length - text.trimStart().length;
    const names = properNouns(`and ${text}`)
      .map((name) => ({ name, at: text.indexOf(name) }))
      // A run that opens the line with a verb, a time or a comment ("Met Sarah Chen at...", "Last Friday
      // Matt...", "Maybe Lena..."): the name is the rest of the run, whatever the memories know of it.
      .map((entry) => {
        const [head = '', ...rest] = entry.name.split(' ');
        if (entry.at !== leading || rest.length === 0 || !(isOpener(head) || TIME_OPENER.test(head) || isDiscourseOpener(head))) return entry;
        const name = rest.join(' ');
        return { name, at: text.indexOf(name, entry.at) };
      })
      .filter((entry) => !asked(entry.name) && !askedCommon(entry.name))
      .filter((entry) => entry.at >= 0 && !quoted.some(([from, to]) => entry.at > from && entry.at < to))
      // The line's first word is capitalised whatever it is: an interjection or an address set off by a comma
      // ("Yep, ...", "Yet, ..."), a word in -ing or -ed ("Nothing beats...", "Seeing them..."), a stopword
      // name no one, unless the memories name it elsewhere (a speaker, a capitalised word inside a sentence).
      .filter((entry) => entry.at !== leading || entry.name.includes(' ') || known.has(entry.name.toLowerCase()) || !openerWord(entry.name, text.slice(entry.at + entry.name.length)))
      // A clause set off by a dash may open with a comment word too ("Family is important - Even though...").
      .filter((entry) => !(/\s[-–—]\s+$/u.test(text.slice(0, entry.at)) && (isDiscourseOpener(entry.name) || isStopword(entry.name) || TIME_OPENER.test(entry.name))))
      .filter((entry) => !addressed(text, entry.at, entry.name))
      // A capitalised word after an article qualifies a thing, it names no one ("the Thai place", "an
      // Italian film"); a person is not "the Rob".
      .filter((entry) => !/\b(?:the|a|an)\s+$/iu.test(text.slice(0, entry.at)))
      .sort((x, y) => x.at - y.at);
    // "Who is the CTO?" asks who holds a role: the name set beside the role's word, as its apposition,
    // answers before the sentence's subject does ("the CTO, Ines Duarte", "Ines Duarte, our CTO").
    // The question's names as the sentence holds them are who it is about, not the relation asked for.
    if (ROLE_QUESTION.test(question.trim())) {
      const nameWords = new Set(properNouns(text).filter((name) => questionNames.has(name.toLowerCase())).flatMap((name) => contentWords(name)));
      const askedWords = new Set(contentWords(question).filter((word) => !nameWords.has(word)));
      const isAskedWord = (word: string | undefined) => word !== undefined && askedWords.has(stem(word.toLowerCase()));
      const beside = names.find((entry) => {
        const before = /([\p{L}\p{N}'’-]+)[,:]?\s+(?:(?:is|was|like|as|named|called)\s+)?$/u.exec(text.slice(0, entry.at))?.[1];
        const after = /^,\s+(?:(?:the|our|my|his|her|their|its|a|an)\s+)?([\p{L}\p{N}'’-]+)/u.exec(text.slice(entry.at + entry.name.length))?.[1];
        return isAskedWord(before) || isAskedWord(after);
      });
      if (beside) return beside.name;
    }
    const first = label && !asked(label) ? { name: label, at: -1 } : names[0];
    if (!first) return undefined;
    const picked = [first.name];
    for (const next of names) {
      if (next.at <= first.at || picked.includes(next.name)) continue;
      const between = text.slice(first.at + first.name.length, next.at);
      if (first.at >= 0 && /^\s*(?:,|and|&)\s*$/u.test(between)) picked.push(next.name);
      break;
    }
    return picked.join(' and ');
  }
  if (kind === 'quantity') {
    const text = withoutLabel(sentence);
    // A number the question already gives is what it asks about, not the answer: "How long did my 10 km
    // run take?" over "Ran 10 km in 52 minutes" is "52 minutes".
    const given = new Set(question.toLowerCase().match(/[\p{L}\p{N}$%.,]+/gu) ?? []);
    const asksMoney = /^how much\b(?!\s+(?:time|longer|later|earlier|farther|further))|\b(?:cost|price|paid|pay|spend|spent|rent|salary)\b/iu.test(question.trim());
    const found = [...text.matchAll(new RegExp(QUANTITY.source, 'giu'))]
      .filter((entry) => !given.has(entry[0].trim().split(/\s+/)[0]?.toLowerCase() ?? ''))
      .sort((a, b) => (asksMoney ? Number(MONEY.test(b[0])) - Number(MONEY.test(a[0])) : 0))[0];
    if (!found) return undefined;
    const parts = found[0].trim().split(/\s+/);
    // "45 minutes at" -> "45 minutes", "52 minutes along" -> "52 minutes": a unit never ends in a stopword
    // or a preposition.
    while (parts.length > 1 && (isStopword(parts[parts.length - 1] ?? '') || PREPOSITIONS.has((parts[parts.length - 1] ?? '').toLowerCase()))) parts.pop();
    const quantity = parts.join(' ');
    // A frequency keeps its period: "three times a week", "once or twice a year", not "three times".
    const start = (found.index ?? 0) + found[0].indexOf(parts[0] ?? '');
    const period = new RegExp(`^${escapeRegExp(quantity)}((?:\\s+or\\s+(?:${NUMBER_WORDS}|\\d+)(?:\\s+times)?)?\\s+(?:a|an|per|every|each)\\s+(?:day|night|week|weekend|month|year|morning|evening))\\b`, 'iu').exec(text.slice(start));
    return period ? `${quantity}${period[1]}` : quantity;
  }
  return undefined;
}

/**
 * A name that qualifies a thing after an article is answered with the thing: "at the Thai place" is "the Thai
 * place", "to a Hetzner storage box" is "a Hetzner storage box", not the name alone; the name itself otherwise
 * ("in Lisbon").
 */
function theNamed(sentence: string, name: string): string {
  const match = new RegExp(`\\b(the|a|an|my|our|your|his|her|their)\\s+${escapeRegExp(name)}((?:\\s+[\\p{Ll}][\\p{L}-]*){1,2})`, 'u').exec(sentence);
  if (!match) return name;
  const nouns: string[] = [];
  for (const word of (match[2] ?? '').trim().split(/\s+/u)) {
    if (isStopword(word) || PREPOSITIONS.has(word) || /(?:ly|ing|ed)$/u.test(word)) break;
    nouns.push(word);
  }
  return nouns.length > 0 ? `${match[1]} ${name} ${nouns.join(' ')}` : name;
}

const WORK_QUESTION = /\b(?:work(?:s|ed|ing)?|job|employ(?:s|ed)?|employer)\b/iu;

/** Words that put a thing somewhere: "under the flowerpot", "in my slipper", "next to the door". */
const LOCATIVE = /\b(in|inside|at|on|under|underneath|beneath|behind|beside|by|near|next to|on top of|in front of|above|below|outside)\s+((?:the|my|his|her|our|their|your|a|an)\s+[^,.;:!?()"“”]+)/giu;
/** Where a place phrase ends: a clause's own word or a time, past which the sentence tells something else. */
const PHRASE_END = /\s+(?:and|but|or|so|because|when|while|which|who|that|where|if|then|since|until|before|after|with|for|to|from|about|as|[–—-])\s+|\s+(?:last|next|this|every|yesterday|today|tonight|tomorrow|earlier|later)\b/u;

/**
 * "Where" answered by a place a sentence gives without naming it: the first phrase that puts something
 * somewhere and holds a word the question does not ("Spare key is under the blue flowerpot by the back
 * door" gives "under the blue flowerpot by the back door"), up to the clause's end, stopwords trimmed at its
 * end ("in my slipper once" gives "in my slipper"). Undefined when the sentence has none.
 */
function placePhrase(sentence: string, question: string): string | undefined {
  // The whole line: a note's "Passport: in the top drawer" names what the place is of before its colon.
  const text = sentence;
  const asked = new Set(contentWords(question));
  // The question's common words, not its names: a speaker's "Gina: ... in my journey" is no place of Gina's.
  const keys = new Set(writtenWordsAsWritten(question).map(wordKey));
  for (const match of text.matchAll(LOCATIVE)) {
    // The place of what the question asks about: the phrase follows one of its words closely ("key is under
    // the flowerpot"), not a place of something else the sentence tells ("supporting me in my journey").
    const lead = termsOf(text.slice(0, match.index ?? 0)).slice(-4);
    if (!lead.some((word) => keys.has(word))) continue;
    const rest = (match[2] ?? '').split(PHRASE_END)[0] ?? '';
    let tokens = `${match[1]} ${rest}`.trim().split(/\s+/u);
    while (tokens.length > 2 && isStopword(tokens[tokens.length - 1] ?? '')) tokens = tokens.slice(0, -1);
    const phrase = tokens.slice(0, 10).join(' ');
    const own = contentWords(phrase);
    if (own.length > 0 && own.some((word) => !asked.has(word))) return phrase;
  }
  return undefined;
}

/** The people a note names by their tie to someone rather than by name ("my aunt", "her colleague"). */
const TIES =
  'mother|mom|mum|father|dad|parents?|sister|brother|siblings?|daughter|son|kids?|children|child|wife|husband|partner|boyfriend|girlfriend|fianc[eé]e?|' +
  'aunt|uncle|cousins?|grandma|grandmother|grandpa|grandfather|grandparents?|niece|nephew|family|friends?|colleagues?|co-?workers?|boss|manager|' +
  'neighbou?rs?|roommates?|teammates?|mentors?|teacher|coach|doctor|dentist|therapist|landlord';
const TIE = new RegExp(`\\b(my|our|his|her|their)\\s+((?:best|old|close|new|little|big|younger|older)\\s+)?(${TIES})\\b`, 'giu');

/**
 * A "who" answer for a line that names no one: the person it names by a tie ("My aunt believed in
 * volunteering" answers "Who inspired Maria to volunteer?" with "Maria's aunt"; a note's own "my sister"
 * stays "my sister"). Undefined when the line has none, or only the tie the question already names.
 */
export function tiePhrase(sentence: string, question: string): string | undefined {
  const label = speakerLabel(sentence);
  const text = label ? sentence.slice(sentence.indexOf(':') + 1) : sentence;
  const asked = new Set(contentWords(question));
  for (const match of text.matchAll(TIE)) {
    const [, owner = '', modifier = '', tie = ''] = match;
    if (asked.has(stem(tie.toLowerCase()))) continue;
    const whose = label && /^(?:my|our)$/iu.test(owner) ? `${label}'s` : owner.toLowerCase();
    return `${whose} ${modifier}${tie.toLowerCase()}`;
  }
  return undefined;
}

/**
 * "Who taught me the plum cake?" asks for the subject of the question's own verb: the name, or with `ties`
 * the tie ("my aunt"), written right before it ("Grandma's recipe: my aunt taught me" gives "my aunt", not
 * "Grandma"). An adverb may sit between ("Rob kindly invited"); a passive's doer counts ("recommended by
 * Julia"). Undefined when no such word follows or precedes one.
 */
export function subjectOf(sentence: string, question: string, questionNames: ReadonlySet<string>, ties: boolean): string | undefined {
  const label = speakerLabel(sentence);
  const text = label ? sentence.slice(sentence.indexOf(':') + 1) : sentence;
  // Only "who" as the subject asks for a doer: its verb comes right after it ("Who taught...", "Who waters
  // ..."); "Who is my landlord?" and "Who did Maria meet?" ask otherwise, and a noun of theirs ("landlord")
  // is no verb to find a subject for ("New landlord is Petra" names no "New").
  const verb = /^who\s+([\p{L}'’-]+)/iu.exec(question.trim())?.[1];
  if (verb === undefined || isStopword(verb) || isAuxiliary(verb)) return undefined;
  const asked = new Set([stem(verb.toLowerCase())]);
  const before = (at: number, length: number) => {
    // A short phrase of the subject's and an auxiliary may come between: "Felix from number 12 will water".
    const next = /^(?:\s+(?:from|of|at|in)\s+[^,;:.!?]{1,20}?)?\s+(?:(?:will|would|can|could|should|shall|must|now|still|also|just|first|once|\p{L}+ly)\s+){0,2}([\p{L}'’-]+)/u.exec(text.slice(at + length))?.[1];
    return next !== undefined && !isStopword(next) && asked.has(stem(next.toLowerCase()));
  };
  const found: { at: number; answer: string }[] = [];
  const leading = text.length - text.trimStart().length;
  // Words the question writes in lower case name no one here either ("Yoga class with Mira").
  const common = new Set(writtenWordsAsWritten(question));
  // "and " first: properNouns leaves a sentence's lone first word out, which here may be the subject.
  for (const run of new Set(properNouns(`and ${text}`))) {
    // As in answerSpan: a run that opens the line with a verb, a time or a comment names its rest ("Maybe
    // Lena"), and a lone capitalised first word that reads as a common word names no one.
    const [head = '', ...rest] = run.split(' ');
    const opens = text.indexOf(run) === leading;
    const name = opens && rest.length > 0 && (isOpener(head) || TIME_OPENER.test(head) || isDiscourseOpener(head)) ? rest.join(' ') : run;
    if (opens && name === run && rest.length === 0 && openerWord(run, text.slice(leading + run.length))) continue;
    const lower = name.toLowerCase();
    if (questionNames.has(lower) || [...questionNames].some((q) => q.includes(lower)) || name.split(/\s+/u).every((word) => common.has(stem(word.toLowerCase())))) continue;
    const at = text.indexOf(name);
    if (at < 0) continue;
    // The doer of a passive: "'Piranesi' by Susanna Clarke, recommended by Julia" for "Who recommended...?".
    const agent = /([\p{L}'’-]+)\s+by\s+$/u.exec(text.slice(0, at))?.[1];
    if (agent !== undefined && asked.has(stem(agent.toLowerCase()))) {
      found.push({ at, answer: name });
      continue;
    }
    // After an article a name qualifies a thing; after a preposition it sits in a phrase of the subject's
    // ("Ana from Globex visits"), it is not the subject.
    if (!before(at, name.length) || /\b(?:the|a|an|from|of|at|in|on|with|for|to|by)\s+$/iu.test(text.slice(0, at))) continue;
    // Subjects joined by "and" share the verb: "Marco and Aisha share the first week".
    const joined = /(\p{Lu}[\p{L}'’-]*(?:\s\p{Lu}[\p{L}'’-]*)*)\s*(?:,|and|&)\s*$/u.exec(text.slice(0, at));
    found.push(joined?.[1] ? { at: joined.index, answer: `${joined[1]} and ${name}` } : { at, answer: name });
  }
  if (ties) {
    for (const match of text.matchAll(TIE)) {
      const [whole, owner = '', modifier = '', tie = ''] = match;
      if (asked.has(stem(tie.toLowerCase())) || !before(match.index ?? 0, whole.length)) continue;
      const whose = label && /^(?:my|our)$/iu.test(owner) ? `${label}'s` : owner.toLowerCase();
      found.push({ at: match.index ?? 0, answer: `${whose} ${modifier}${tie.toLowerCase()}` });
    }
  }
  return found.sort((a, b) => a.at - b.at)[0]?.answer;
}

/**
 * "Who is my manager?" answered by the line that gives the role as asked: "Lena Vogel is my manager", "Sarah
 * Chen, CFO of Acme Corp", "Our landlord is Mr. Haddad", "the landlord (Mr Adebayo)" (the role's own article
 * may differ or be left out), not a line that names someone near another role ("David Kim is the account
 * manager"). Undefined otherwise.
 */
export function holderOf(sentence: string, question: string): string | undefined {
  const asked = /^who\s+(?:is|was|are|were)\s+(?:(?:the|a|an|my|our|his|her|their|its)\s+)?(.+?)\s*\??$/iu.exec(question.trim())?.[1];
  if (!asked || !ROLE_QUESTION.test(question.trim())) return undefined;
  // The role less when it is asked about ("my landlord these days"), and its head word for a line that
  // words it shorter ("the residents' association treasurer" is the "treasurer" of "RA treasurer: Óscar").
  const role = asked.replace(/\s+(?:now|currently|these days|nowadays|at the moment|today)$/iu, '');
  const roleHead = role.split(/\s+of\s+/iu)[0]?.split(/\s+/u).at(-1) ?? role;
  // The whole line, a label included: "Treasurer: Yuki Tanaka" reads like a speaker's turn but gives a role.
  const text = sentence;
  const phrase = new RegExp(`\\b(?:(?:the|a|an|my|our|his|her|their|its)\\s+)?(?:${escapeRegExp(role)}|${escapeRegExp(roleHead)})\\b`, 'giu');
  // Names are capitalised: matched case-sensitively, beside the role found in any case ("CFO", "cfo").
  const name = `((?:(?:${NAME_TITLES})\\.\\s+)?\\p{Lu}[\\p{L}'’-]*(?:\\s+\\p{Lu}[\\p{L}'’-]*)*)`;
  let holds: RegExpExecArray | null = null;
  for (const match of text.matchAll(phrase)) {
    const at = match.index ?? 0;
    // The name before the role holds it ("Lena Vogel is my manager", "Óscar stays treasurer"); the name after
    // it does when the role is named on its own ("the CTO, Ines Duarte", "Treasurer: Yuki"), not when it ends
    // a clause about someone else ("Óscar stays treasurer, Lotte is secretary") nor when it is another label
    // ("Treasurer: Chair: Bernard", as a note's later lines carry its first label).
    const standsAlone = /\s/u.test(match[0].trim()) || /(?:^|[.;:(]\s*)$/u.test(text.slice(0, at));
    holds =
      new RegExp(`${name}(?:\\s+(?:is|was|stays|remains|becomes|became)(?:\\s+(?:now|still))?|,)\\s+$`, 'u').exec(text.slice(0, at)) ??
      new RegExp(`^(?:\\s+(?:is|was)|:|${standsAlone ? ',|' : ''}\\s*\\()\\s*${name}\\b(?!\\s*:)`, 'u').exec(text.slice(at + match[0].length));
    if (holds) break;
  }
  const run = holds?.[1]?.trim();
  if (!run || /^(?:the|a|an|my|our|his|her|their|its)$/iu.test(run)) return undefined;
  // A run that opens with a verb or a comment names its rest ("Met Sarah Chen").
  const [head = '', ...rest] = run.split(/\s+/u);
  return rest.length > 0 && (isOpener(head) || TIME_OPENER.test(head) || isDiscourseOpener(head)) ? rest.join(' ') : run;
}

/** The stems of the words a question writes in lower case (its common words, not its names). */
function writtenWordsAsWritten(question: string): string[] {
  return (question.match(/(?<![\p{L}'’])\p{Ll}[\p{L}'’-]*/gu) ?? []).filter((word) => !isStopword(word)).map((word) => stem(word));
}

/** Whether a line's capitalised first word reads as a common word rather than a name (see answerSpan). */
function openerWord(word: string, rest: string): boolean {
  return /^\s*[,!]/u.test(rest) || isStopword(word.toLowerCase()) || /(?:ing|ed)$/u.test(word) || TIME_OPENER.test(word) || isDiscourseOpener(word) || isOpener(word);
}

/**
 * Capitalised first words that comment on the line rather than name anyone ("Maybe we could...",
 * "Honestly, ...", "Luckily"). Listed, not every word in -ly: Emily, Kelly and Holly are names.
 */
const DISCOURSE_OPENERS = new Set([
  'maybe', 'perhaps', 'also', 'still', 'sure', 'anyway', 'well', 'sometimes', 'often', 'even', 'almost', 'already', 'again', 'besides', 'plus', 'instead', 'otherwise',
  'actually', 'honestly', 'luckily', 'hopefully', 'probably', 'definitely', 'absolutely', 'basically', 'seriously', 'unfortunately', 'fortunately', 'finally',
  'obviously', 'apparently', 'clearly', 'literally', 'totally', 'really', 'surely', 'certainly', 'personally', 'usually', 'generally', 'eventually', 'suddenly',
  'thankfully', 'sadly', 'naturally', 'frankly', 'interestingly', 'speaking', 'btw',
]);
const isDiscourseOpener = (word: string) => DISCOURSE_OPENERS.has(word.toLowerCase());

/** Capitalised first words that open a time ("Last night", "This morning", "Yesterday"): no names. */
const TIME_OPENER = /^(?:last|next|this|every|each|yesterday|today|tonight|tomorrow|recently|lately)$/iu;

/**
 * Whether the name at `at` of a line is someone addressed, not someone the line tells of: after a greeting
 * or thanks ("Hey Priya", "Thanks, Dan"), or before an exclamation ("Priya!"). A reply addresses the
 * person it answers, who is rarely whom a "who" question asks for.
 */
function addressed(text: string, at: number, name: string): boolean {
  const before = text.slice(0, at);
  const after = text.slice(at + name.length);
  return /\b(?:hey|hi|hello|thanks|thank you|wow|yeah|yep|yup|oh|congrats|congratulations|sorry|dear|aw+)[,!]?\s*$/iu.test(before) || /^\s*[!?]/u.test(after);
}

/**
 * A line less a label that opens it: a speaker's ("Priya: I went...") or a note's ("Passport: in the top
 * drawer"), up to forty characters before the colon.
 */
export function withoutLabel(line: string): string {
  return line.replace(/^[^:]{1,40}:\s/u, '');
}

/** "Priya: I went..." -> "Priya". Conversation turns and chat logs label their speaker this way. */
export function speakerLabel(content: string): string | undefined {
  return /^(\p{Lu}[\p{L}'’.-]*(?:\s\p{Lu}[\p{L}'’.-]*){0,2}):\s/u.exec(content.trim())?.[1];
}
