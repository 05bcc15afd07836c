import type { AnswerFact, EntityType } from '../../providers/spec.js';
import type { EntityRecord, FactRecord } from '../knowledge/types.js';
import { relationsOf, type AnswerType, type QuestionAnalysis } from './question.js';
import { findExplicitDate, formatDay, MONTHS } from './text.js';

/** What fact answers need of the knowledge graph (KnowledgeService provides it). */
export interface FactLookup {
  entitiesNamed(accountId: string, names: readonly string[]): Promise<{ entity: EntityRecord; name: string }[]>;
  factsAbout(accountId: string, entityIds: readonly string[]): Promise<FactRecord[]>;
  entitiesByIds(accountId: string, ids: readonly string[]): Promise<EntityRecord[]>;
  /** People whose full name starts with this given name ("Lena" -> "Lena Park"). */
  peopleByGivenName?(accountId: string, name: string): Promise<EntityRecord[]>;
}

/** A fact that answers the question, with how well it matches and whether it leads the answer. */
export interface FactMatch extends AnswerFact {
  readonly score: number;
  /** In the best group (same relation and named side): the built-in answerer names all of these. */
  readonly primary: boolean;
}

/** Most matching facts handed to an answerer: more would crowd an LLM prompt with near repeats. */
const MAX_FACTS = 5;

const isoDay = (ms: number | null) => (ms === null ? undefined : new Date(ms).toISOString().slice(0, 10));

/** The type a fact's missing side has: an entity's type, or for a literal what its category says. */
function sideType(fact: FactRecord, side: 'subject' | 'object', types: ReadonlyMap<string, EntityType>): AnswerType | 'other-entity' {
  const id = side === 'subject' ? fact.subjectId : fact.objectId;
  if (id !== null) {
    const type = types.get(id);
    return type === 'person' || type === 'location' || type === 'company' ? type : type === 'date' ? 'date' : 'other-entity';
  }
  if (fact.category === 'date') return 'date';
  if (fact.category === 'metric') return 'quantity';
  return 'other';
}

/**
 * The day a fact answers "when" with: the excerpt's own wording when it holds a dated phrase ("March 2024",
 * as the note says it; validFrom would turn it into the 1st), else validFrom, else a DATE fact's object.
 */
function factDate(fact: FactRecord): string | undefined {
  const written = findExplicitDate(fact.source.excerpt);
  if (fact.predicate === 'DATE') return written && /\d/.test(written) ? written : fact.object;
  if (fact.validFrom === null) return undefined;
  if (written && /\d/.test(written)) return written;
  // "started in September": a month the note names without its day or year is the month, not its 1st.
  const day = new Date(fact.validFrom);
  const month = MONTHS[day.getUTCMonth()] ?? '';
  if (day.getUTCDate() === 1 && new RegExp(`\\b${month}\\b`, 'iu').test(fact.source.excerpt)) return `${month} ${day.getUTCFullYear()}`;
  // "next year", "last month": the year or the month the note means, not its first day.
  if (day.getUTCDate() === 1 && /\b(?:next|last|this)\s+month\b/iu.test(fact.source.excerpt)) return `${month} ${day.getUTCFullYear()}`;
  if (day.getUTCDate() === 1 && day.getUTCMonth() === 0 && /\b(?:next|last|this)\s+year\b/iu.test(fact.source.excerpt)) return String(day.getUTCFullYear());
  return formatDay(fact.validFrom);
}

/**
 * Facts of the knowledge graph that answer a question: one of its sides is an entity the question names
 * (through names and aliases), its predicate is a relation the question asks about, and the other side is
 * of the type asked (a person for "who"...). "When" questions take the fact's date. Superseded facts answer
 * only questions about the past, and lead only when the question asks for an earlier state. Validity is
 * read as of `now`: a fact superseded from a date still to come is current until then, and a fact that
 * becomes true later ("is moving to Oslo next year") answers only "when".
 */
export async function findFactAnswers(
  lookup: FactLookup,
  accountId: string,
  question: string,
  analysis: QuestionAnalysis,
  now: number = Date.now(),
): Promise<FactMatch[]> {
  if (analysis.names.length === 0) return [];
  const named = (await lookup.entitiesNamed(accountId, analysis.names)).filter(({ entity }) => entity.type !== 'date');
  const found = named.length > 0 ? await matchesFor(lookup, accountId, question, analysis, named, now) : [];
  if (found.length > 0 || !lookup.peopleByGivenName) return found;
  // A given name alone that no fact of the asked kind answers for: the one person whose full name starts
  // with it ("Where does Lena work?" after "Lena Park moved to Lisbon to join Oceanic Labs"). Read here,
  // not merged when saved: a bare "Sara" in a chat was the speaker's daughter, not the Sara Bareilles a
  // song was by (LoCoMo), and the answer's statement names the person it is about.
  const known = new Set(named.map(({ entity }) => entity.id));
  const byGivenName: { entity: EntityRecord; name: string }[] = [];
  for (const name of analysis.names) {
    if (/\s/.test(name.trim())) continue;
    const people = (await lookup.peopleByGivenName(accountId, name)).filter((entity) => !known.has(entity.id));
    if (people.length === 1) byGivenName.push({ entity: people[0] as EntityRecord, name });
  }
  return byGivenName.length > 0 ? matchesFor(lookup, accountId, question, analysis, byGivenName, now) : [];
}

async function matchesFor(
  lookup: FactLookup,
  accountId: string,
  question: string,
  analysis: QuestionAnalysis,
  named: readonly { entity: EntityRecord; name: string }[],
  now: number,
): Promise<FactMatch[]> {
  const namedIds = new Set(named.map(({ entity }) => entity.id));
  const facts = await lookup.factsAbout(accountId, [...namedIds]);
  if (facts.length === 0) return [];
  const relations = new Set([...analysis.relations, ...relationsOf(question, [...new Set(facts.map((fact) => fact.predicate))])]);
  const ended = (fact: FactRecord) => fact.validTo !== null && fact.validTo <= now;
  const begun = (fact: FactRecord) => fact.validFrom === null || fact.validFrom <= now;
  const candidates = facts.filter(
    (fact) => relations.has(fact.predicate) && (begun(fact) || analysis.type === 'date') && (!ended(fact) || analysis.past),
  );
  if (candidates.length === 0) return [];

  const otherIds = [...new Set(candidates.flatMap((fact) => [fact.subjectId, fact.objectId]).filter((id): id is string => id !== null && !namedIds.has(id)))];
  const types = new Map<string, EntityType>([...named.map(({ entity }) => [entity.id, entity.type] as const)]);
  for (const entity of await lookup.entitiesByIds(accountId, otherIds)) types.set(entity.id, entity.type);

  const matches: (FactMatch & { group: string })[] = [];
  for (const fact of candidates) {
    const subjectNamed = namedIds.has(fact.subjectId);
    const objectNamed = fact.objectId !== null && namedIds.has(fact.objectId);
    if (!subjectNamed && !objectNamed) continue;
    let answer: string | undefined;
    let group: string;
    if (analysis.type === 'date') {
      answer = factDate(fact);
      group = `${fact.predicate}|${fact.subjectId}|${fact.objectId ?? fact.object}`;
    } else {
      if (subjectNamed && objectNamed) continue;
      const missing = subjectNamed ? 'object' : 'subject';
      const type = sideType(fact, missing, types);
      // An untyped question ("What is ...?") takes any side; a typed one only a side of that type.
      if (analysis.type !== 'other' && type !== analysis.type) continue;
      answer = missing === 'object' ? fact.object : fact.subject;
      group = `${fact.predicate}|${missing}|${subjectNamed ? fact.subjectId : fact.objectId}`;
    }
    if (!answer) continue;
    const superseded = ended(fact);
    // The question's tense orders current and superseded facts; the extractor's confidence orders the rest.
    const tense = superseded ? (analysis.earlier ? 1.1 : 0.9) : analysis.earlier ? 0.9 : 1;
    matches.push({
      statement: fact.statement,
      answer,
      confidence: fact.confidence,
      sourceId: fact.source.documentId,
      ...(fact.validFrom !== null ? { validFrom: isoDay(fact.validFrom) } : {}),
      // Also a date still to come: "until" it, the fact holds.
      ...(fact.validTo !== null ? { validTo: isoDay(fact.validTo) } : {}),
      score: fact.confidence * tense,
      primary: false,
      group: `${superseded ? 'past' : 'now'}|${group}`,
    });
  }
  matches.sort((a, b) => b.score - a.score || a.answer.localeCompare(b.answer));
  const best = matches[0]?.group;
  const seen = new Set<string>();
  return matches
    .filter((match) => {
      // One fact per answer: a fact stated by several memories is one fact; repeated answers add nothing.
      const key = `${match.group}|${match.answer.toLowerCase()}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .slice(0, MAX_FACTS)
    .map(({ group, ...match }) => ({ ...match, primary: group === best }));
}
