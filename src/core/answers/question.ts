import { contentWords, isAuxiliary, isStopword, properNouns, words } from './text.js';

/**
 * What a question asks for, read the way the answerers need it: the type of the answer, the names it gives
 * (candidates for entities of the knowledge graph), the relations it asks about, and whether it asks about
 * the past. Pure and cheap: it runs on every ask.
 */

/** The kind of thing that answers: a person for "who", a place for "where", a date for "when"... */
export type AnswerType = 'person' | 'location' | 'date' | 'company' | 'quantity' | 'other';

export interface QuestionAnalysis {
  readonly type: AnswerType;
  /** Phrases that may name entities, longest first: proper nouns, their sub-runs, and content-word n-grams. */
  readonly names: readonly string[];
  /** Predicates the question's words ask about (WORKS_AT for "works at", "joined", "employed by"). */
  readonly relations: readonly string[];
  /** The question asks about the past ("used to", "before", "was"): superseded facts may answer it. */
  readonly past: boolean;
  /** It asks explicitly for an earlier state ("before", "previously", "used to"): superseded facts first. */
  readonly earlier: boolean;
}

/**
 * Wordings of the predicates the extractors produce. A predicate also matches when its own words occur in
 * the question ("cfo of" for CFO_OF, "revenue" for REVENUE), so only synonyms need listing here.
 */
const RELATION_CUES: readonly { readonly predicate: string; readonly cue: RegExp }[] = [
  { predicate: 'WORKS_AT', cue: /\b(?:works?|worked|working)\s+(?:at|for|with)\b|\b(?:start(?:s|ed|ing)?|began|begin(?:s|ning)?)\s+(?:at|with|working)\b|\bjoin(?:s|ed)?\b|\bemploy(?:s|ed|er|ee)\b|\bjob\s+at\b|\bhired\b|\bsigned\s+with\b|\bwhere\b.*\bwork(?:s|ed|ing)?\b/ },
  { predicate: 'CEO_OF', cue: /\bceo\b|\bchief executive\b|\brun(?:s)?\s+(?:the\s+)?company\b/ },
  { predicate: 'CFO_OF', cue: /\bcfo\b|\bchief financial\b|\bfinance chief\b/ },
  { predicate: 'CTO_OF', cue: /\bcto\b|\bchief technology\b/ },
  { predicate: 'COO_OF', cue: /\bcoo\b|\bchief operating\b/ },
  { predicate: 'CPO_OF', cue: /\bcpo\b|\bchief product\b/ },
  { predicate: 'CMO_OF', cue: /\bcmo\b|\bchief marketing\b/ },
  { predicate: 'FOUNDER_OF', cue: /\bfound(?:ed|er|ers)\b|\bco-?found(?:ed|er)\b|\bstarted\b/ },
  { predicate: 'PRESIDENT_OF', cue: /\bpresident\b/ },
  { predicate: 'CHAIR_OF', cue: /\bchair(?:man|woman|person)?\b/ },
  { predicate: 'OWNER_OF', cue: /\bown(?:s|er)?\b/ },
  { predicate: 'ROLE_AT', cue: /\brole\b|\bposition\b|\btitle\b/ },
  { predicate: 'TITLE', cue: /\brole\b|\bposition\b|\btitle\b|\bjob\b/ },
  { predicate: 'LIVES_IN', cue: /\blive[sd]?\b|\bliving\b|\bmoved?\b|\breside[sd]?\b|\bhome\b/ },
  { predicate: 'LOCATED_IN', cue: /\bbased\b|\bheadquarter(?:s|ed)?\b|\blocated\b|\bhq\b|\boffices?\b|\btakes? place\b|\bheld\b/ },
  { predicate: 'REPORTS_TO', cue: /\breports?\s+to\b|\bmanager\b|\bboss\b/ },
  { predicate: 'ACQUIRED', cue: /\bacquir(?:e|ed|es|ing)\b|\bbought\b|\bbuy\b|\bpurchased?\b/ },
  { predicate: 'PART_OF', cue: /\bpart of\b|\bsubsidiary\b|\bdivision\b|\bparent\b|\bowns?\b/ },
  { predicate: 'LAUNCHED', cue: /\blaunch(?:ed|es)?\b|\breleas(?:e|ed)\b|\bship(?:ped|s)?\b|\bmakes?\b|\bbuil[dt]s?\b/ },
  { predicate: 'INVOLVED_IN', cue: /\battend(?:s|ed|ing)?\b|\bspeak(?:s|ing)?\b|\bspoke\b|\bpresent(?:s|ed|ing)?\b|\borgani[sz](?:e|ed|es|ing)\b|\bsponsor(?:s|ed|ing)?\b|\bhost(?:s|ed|ing)?\b|\bgo(?:ing)?\s+to\b|\bwent\s+to\b/ },
  { predicate: 'DATE', cue: /\bwhen\b|\bdate\b|\bday\b/ },
];

const PAST = /\b(?:was|were|did|had|used to|before|previous(?:ly)?|former(?:ly)?|originally|at first|earlier|ago|last (?:year|month|week)|in (?:19|20)\d\d)\b/;
const EARLIER = /\b(?:used to|before|previous(?:ly)?|former(?:ly)?|originally|at first|earlier|prior)\b/;

export function answerType(question: string): AnswerType {
  const q = question.trim().toLowerCase();
  if (/^(?:when|what (?:date|day|time|year|month)|which (?:year|month|day|date)|how long ago)\b/.test(q) || /\bwhen (?:did|does|do|is|was|will|are|were)\b/.test(q) || /\bin what year\b/.test(q)) {
    return 'date';
  }
  if (/^(?:who|whom|whose)\b/.test(q) || /^(?:which|what) (?:person|people|colleague|friend|one of)\b/.test(q)) return 'person';
  // "Where does Tom work?" asks for an employer, not a place.
  if (/^where (?:does|did|do|is|was|has|have)\b.*\bwork(?:s|ed|ing)?\b/.test(q)) return 'company';
  if (/^where\b/.test(q) || /^(?:in |to )?(?:which|what) (?:city|country|town|place|state|region|location|venue|office)\b/.test(q)) return 'location';
  if (/^(?:for |at )?(?:which|what) (?:company|companies|firm|organi[sz]ation|employer|startup|business|team|client|customer|vendor|bank)\b/.test(q)) return 'company';
  if (/\bhow (?:many|much|often|long|old)\b/.test(q)) return 'quantity';
  return 'other';
}

/** Phrases of the question that may name an entity, longest first. */
function namePhrases(question: string): string[] {
  const phrases = new Set<string>();
  for (const noun of properNouns(question)) {
    // "CFO of Acme Corp" is one capitalised run; its parts ("Acme Corp", "CFO") are names too.
    const parts = noun.split(/\s+/);
    for (let length = parts.length; length >= 1; length--) {
      for (let start = 0; start + length <= parts.length; start++) {
        const run = parts.slice(start, start + length);
        if (/^(?:of|de|van|von)$/i.test(run[0] ?? '') || /^(?:of|de|van|von)$/i.test(run[run.length - 1] ?? '')) continue;
        phrases.add(run.join(' '));
      }
    }
  }
  // Names typed in lower case ("who works at globex?"): runs of up to three content words.
  const tokens = words(question).filter((word) => !isStopword(word) && word.length > 1);
  for (let length = 3; length >= 1; length--) {
    for (let start = 0; start + length <= tokens.length; start++) phrases.add(tokens.slice(start, start + length).join(' '));
  }
  return [...phrases].sort((a, b) => b.length - a.length);
}

/** The predicates a question asks about, from the cue table and from each candidate predicate's own words. */
export function relationsOf(question: string, predicates: readonly string[] = []): string[] {
  const q = ` ${words(question).join(' ')} `;
  const found = new Set(RELATION_CUES.filter((entry) => entry.cue.test(q)).map((entry) => entry.predicate));
  for (const predicate of predicates) {
    const phrase = predicate.toLowerCase().replace(/_/g, ' ').trim();
    if (phrase && q.includes(` ${phrase} `)) found.add(predicate);
  }
  return [...found];
}

export function analyseQuestion(question: string): QuestionAnalysis {
  const lower = question.toLowerCase();
  return {
    type: answerType(question),
    names: namePhrases(question),
    relations: relationsOf(question),
    past: PAST.test(lower),
    earlier: EARLIER.test(lower),
  };
}

/**
 * The stemmed content words of the thing a "what/which" question names as its answer's kind ("What course
 * did Priya take?" -> course; "What kind of cake did Dan bake?" -> cake; "Which jazz singers..."
 * -> jazz, singer): the line that answers usually names that kind next to the answer ("an evening
 * first-aid course"), while lines that share only the question's other words talk around it. Empty for
 * other questions and for "What did...?", which names no kind.
 */
export function headWords(question: string): string[] {
  const tokens = words(question);
  let at = /^(?:in|at|to|from|for|on|with)$/.test(tokens[0] ?? '') ? 1 : 0;
  if (!/^(?:what|which)$/.test(tokens[at] ?? '')) return [];
  at += 1;
  if (/^(?:kinds?|types?|sorts?)$/.test(tokens[at] ?? '') && tokens[at + 1] === 'of') at += 2;
  const head: string[] = [];
  for (; at < tokens.length && head.length < 3; at++) {
    const token = tokens[at] ?? '';
    if (isAuxiliary(token)) break;
    head.push(token);
  }
  return at < tokens.length ? contentWords(head.join(' ')) : [];
}
