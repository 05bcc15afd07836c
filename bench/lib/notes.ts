/**
 * A deterministic generator of realistic short notes and of search queries about them, for the latency
 * benchmark.
 *
 * How a note is made: a seeded PRNG (mulberry32) picks a "scene" - one person, a second person, a company,
 * a place, a work topic and a personal topic from fixed vocabularies (48 people, 30 companies, 30 places,
 * 40 work topics, 20 personal topics) - then 1-4 sentences from ~30 templates of the kind people jot down
 * (meetings, to-dos, travel, ideas, reading, errands), filled from that scene, so a note stays about one
 * thing the way a real note does. Each template carries a kind (meeting, todo, travel, idea, reading,
 * personal); the tags are the first sentence's kind plus, with some probability, the topic's and the
 * company's slugs (1-3 tags). Notes are 9-50 words (median ~25), the length of what people jot down.
 *
 * How a query is made: ~20 question-like templates filled from a fresh scene, worded differently from
 * the note templates (asks "who is travelling to Lisbon" where notes say "flying to Lisbon"), so search
 * runs on meaning rather than on copied sentences. Every query is unique within a generator: the daemon
 * caches query embeddings, and a repeated query would time a cache hit instead of a search.
 */

/** mulberry32: a tiny, fast, well-mixed 32-bit PRNG; the same seed gives the same corpus everywhere. */
export function createRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PEOPLE = [
  'Alice Martin', 'Bruno Costa', 'Chiara Rossi', 'Dmitri Volkov', 'Emeka Okafor', 'Fatima Zahra', 'Gustav Lind',
  'Hana Suzuki', 'Ines Moreau', 'Jamal Wright', 'Kavya Iyer', 'Liam Byrne', 'Maya Cohen', 'Nils Berg',
  'Olivia Grant', 'Pedro Alves', 'Quinn Harper', 'Rosa Delgado', 'Sven Nyqvist', 'Tara Singh', 'Umar Haddad',
  'Vera Novak', 'Wei Zhang', 'Ximena Ruiz', 'Yusuf Demir', 'Zoe Fischer', 'Aaron Blake', 'Bea Lopez',
  'Carlos Mendes', 'Dana Kim', 'Elif Kaya', 'Felix Wagner', 'Grace Obi', 'Hugo Laurent', 'Ivy Chen',
  'Jonas Weber', 'Keiko Tanaka', 'Leo Marchetti', 'Mina Park', 'Noah Evans', 'Oskar Nowak', 'Priya Nair',
  'Rafael Torres', 'Sara Lindqvist', 'Tom Becker', 'Uma Patel', 'Victor Hale', 'Wanda Kowalska',
];

const COMPANIES: readonly (readonly [string, string])[] = [
  ['Acme Corp', 'acme'], ['Globex', 'globex'], ['Initech', 'initech'], ['Umbrella Health', 'umbrella'],
  ['Northwind Traders', 'northwind'], ['Contoso', 'contoso'], ['Stark Logistics', 'stark'], ['Blue Harbor Bank', 'blueharbor'],
  ['Pied Piper', 'piedpiper'], ['Hooli', 'hooli'], ['Wayne Foods', 'waynefoods'], ['Soylent Labs', 'soylent'],
  ['Vandelay Imports', 'vandelay'], ['Tyrell Systems', 'tyrell'], ['Cyberdyne', 'cyberdyne'], ['Oscorp Energy', 'oscorp'],
  ['Massive Dynamic', 'massive'], ['Gringotts Capital', 'gringotts'], ['Monarch Solar', 'monarch'], ['Aperture Science', 'aperture'],
  ['Wonka Retail', 'wonka'], ['Dunder Paper', 'dunder'], ['Bluth Homes', 'bluth'], ['Sterling Cooper', 'sterling'],
  ['Lumen Analytics', 'lumen'], ['Nimbus Cloud', 'nimbus'], ['Redwood Insurance', 'redwood'], ['Kestrel Air', 'kestrel'],
  ['Orbit Telecom', 'orbit'], ['Fjord Shipping', 'fjord'],
];

const PLACES = [
  'Paris', 'Lisbon', 'Nairobi', 'Osaka', 'Toronto', 'Berlin', 'Madrid', 'Seoul', 'Austin', 'Dublin', 'Warsaw',
  'Cape Town', 'Melbourne', 'Oslo', 'Mexico City', 'Singapore', 'Istanbul', 'Buenos Aires', 'Vienna', 'Bangalore',
  'Copenhagen', 'Lagos', 'Montreal', 'Prague', 'Kyoto', 'Edinburgh', 'Zurich', 'Seattle', 'Athens', 'Reykjavik',
];

const WORK_TOPICS: readonly (readonly [string, string])[] = [
  ['the Q3 roadmap', 'roadmap'], ['the hiring plan', 'hiring'], ['the database migration', 'migration'],
  ['the pricing page', 'pricing'], ['the onboarding flow', 'onboarding'], ['the security audit', 'security'],
  ['the mobile release', 'mobile'], ['the budget review', 'budget'], ['the churn report', 'churn'],
  ['the API redesign', 'api'], ['the design system', 'design'], ['the customer survey', 'survey'],
  ['the data warehouse', 'data'], ['the partner contract', 'contract'], ['the incident postmortem', 'incident'],
  ['the search relevance work', 'search'], ['the billing bug', 'billing'], ['the quarterly board deck', 'board'],
  ['the support backlog', 'support'], ['the accessibility fixes', 'a11y'], ['the offsite agenda', 'offsite'],
  ['the sales forecast', 'forecast'], ['the GDPR request', 'privacy'], ['the cloud cost report', 'costs'],
  ['the beta launch', 'launch'], ['the performance reviews', 'reviews'], ['the vendor evaluation', 'vendors'],
  ['the recruiting pipeline', 'recruiting'], ['the marketing campaign', 'marketing'], ['the analytics dashboard', 'analytics'],
  ['the localisation project', 'i18n'], ['the SSO integration', 'sso'], ['the backup policy', 'backups'],
  ['the app store review', 'appstore'], ['the team reorg', 'reorg'], ['the user interviews', 'research'],
  ['the checkout redesign', 'checkout'], ['the latency regression', 'latency'], ['the compliance training', 'compliance'],
  ['the annual planning', 'planning'],
];

const PERSONAL_TOPICS = [
  'the dentist appointment', "Mia's birthday party", 'the marathon training plan', 'the sourdough starter',
  'the car insurance renewal', 'the apartment lease', 'the piano lessons', 'the garden fence', 'the tax return',
  'the summer holiday', 'the book club', 'the gym membership', 'the new bike', 'the kitchen renovation',
  'the Spanish course', 'the vet visit', 'the wedding gift', 'the photo album', 'the climbing trip', 'the passport renewal',
];

const READING = [
  'vector databases', 'sleep and memory', 'remote team rituals', 'the history of spreadsheets', 'urban heat islands',
  'battery chemistry', 'negotiation tactics', 'writing clear design docs', 'the economics of open source',
  'habit formation', 'coral reef recovery', 'typography on the web', 'the future of work weeks', 'fermentation',
];

const DAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday', 'tomorrow', 'next week'];
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const TIMES = ['9:00', '9:30', '10:00', '11:15', '13:00', '14:30', '16:00', '17:45'];

interface Scene {
  readonly person: string;
  readonly person2: string;
  readonly company: readonly [string, string];
  readonly place: string;
  readonly topic: readonly [string, string];
  readonly personal: string;
  readonly reading: string;
  readonly day: string;
  readonly month: string;
  readonly time: string;
  readonly amount: number;
}

type Kind = 'meeting' | 'todo' | 'travel' | 'idea' | 'reading' | 'personal';

const NOTE_TEMPLATES: readonly (readonly [Kind, (s: Scene) => string])[] = [
  ['meeting', (s) => `Met ${s.person} from ${s.company[0]} to go over ${s.topic[0]}.`],
  ['meeting', (s) => `Call with ${s.company[0]} about ${s.topic[0]} moved to ${s.day} at ${s.time}.`],
  ['meeting', (s) => `${s.person} thinks ${s.topic[0]} will slip to ${s.month} unless we cut scope.`],
  ['meeting', (s) => `${s.person} and ${s.person2} disagreed on ${s.topic[0]}; we agreed to revisit it on ${s.day}.`],
  ['meeting', (s) => `The ${s.company[0]} team in ${s.place} wants a demo of ${s.topic[0]} before ${s.month}.`],
  ['meeting', (s) => `${s.person} said ${s.company[0]} is hiring two engineers to help with ${s.topic[0]}.`],
  ['todo', (s) => `Remember to send ${s.person} the notes on ${s.topic[0]} before ${s.day}.`],
  ['todo', (s) => `Follow up with ${s.person} on the contract renewal with ${s.company[0]}.`],
  ['todo', (s) => `Blocked on ${s.topic[0]} until ${s.company[0]} sends the credentials.`],
  ['todo', (s) => `Ask ${s.person2} to review the draft for ${s.topic[0]} by ${s.day}.`],
  ['todo', (s) => `Budget for ${s.topic[0]} is now ${s.amount}k, approved by ${s.person}.`],
  ['todo', (s) => `${s.person} prefers email over calls; copy ${s.person2} on anything about ${s.topic[0]}.`],
  ['travel', (s) => `${s.person} is flying to ${s.place} on ${s.day} for the ${s.company[0]} offsite.`],
  ['travel', (s) => `Book a hotel in ${s.place} for the conference in ${s.month}.`],
  ['travel', (s) => `${s.person2} recommended a small restaurant near the old station in ${s.place}.`],
  ['travel', (s) => `Train to ${s.place} leaves at ${s.time}; ${s.person} has the tickets.`],
  ['idea', (s) => `Idea: pair ${s.person} with ${s.person2} on ${s.topic[0]}.`],
  ['idea', (s) => `What if ${s.company[0]} offered a free tier to get past the objections on ${s.topic[0]}?`],
  ['idea', (s) => `We could reuse the ${s.place} office setup for ${s.topic[0]} instead of building a new one.`],
  ['reading', (s) => `Read a long article about ${s.reading}; worth sharing with ${s.person}.`],
  ['reading', (s) => `${s.person2} recommended a book on ${s.reading}, the author lives in ${s.place}.`],
  ['reading', (s) => `Key point from the talk on ${s.reading}: start small and measure everything.`],
  ['personal', (s) => `Need to sort out ${s.personal} before ${s.month}.`],
  ['personal', (s) => `${s.person} can lend me a drill for ${s.personal} on ${s.day}.`],
  ['personal', (s) => `Moved ${s.personal} to ${s.day} at ${s.time}, ${s.person2} will come along.`],
  ['personal', (s) => `Spent ${s.amount} euros on ${s.personal} so far this year.`],
];

/** Follow-up sentences: they keep talking about the same scene. */
const FOLLOW_UPS: readonly ((s: Scene) => string)[] = [
  (s) => `${s.person2} will take the lead on the next steps.`,
  (s) => `Need an answer by ${s.day}.`,
  (s) => `It came up again in the ${s.company[0]} weekly.`,
  (s) => `Last time this took about ${Math.max(2, Math.round(s.amount / 10))} weeks.`,
  (s) => `${s.person} wants a short written summary first.`,
  () => 'Not urgent, but do not forget it.',
  (s) => `Check whether ${s.place} has the same problem.`,
  (s) => `Keep ${s.person2} in the loop.`,
  () => 'The numbers looked better than expected.',
  (s) => `Open question: who owns ${s.topic[0]} after ${s.month}?`,
  () => 'Put a reminder in the calendar.',
  (s) => `${s.company[0]} already tried something similar last year.`,
];

const QUERY_TEMPLATES: readonly ((s: Scene) => string)[] = [
  (s) => `what did ${s.person} say about ${s.topic[0]}`,
  (s) => `when is the next meeting with ${s.company[0]}`,
  (s) => `who is travelling to ${s.place} soon`,
  (s) => `how much money was approved for ${s.topic[0]}`,
  (s) => `notes from the phone call with ${s.company[0]} on ${s.topic[0]}`,
  (s) => `good place to eat in ${s.place}`,
  (s) => `is ${s.company[0]} recruiting engineers`,
  (s) => `things I promised to send ${s.person}`,
  (s) => `is ${s.topic[0]} running late`,
  (s) => `what is waiting on ${s.company[0]}`,
  (s) => `article about ${s.reading} I wanted to pass on`,
  (s) => `when do I have to deal with ${s.personal}`,
  (s) => `how much have I spent on ${s.personal}`,
  (s) => `accommodation for the event in ${s.place} in ${s.month}`,
  (s) => `who should work together with ${s.person2}`,
  (s) => `renewing the agreement with ${s.company[0]}`,
  (s) => `${s.person} and ${s.person2} arguing about ${s.topic[0]}`,
  (s) => `demo requested by the people in ${s.place}`,
  (s) => `does ${s.person} like phone calls`,
  (s) => `train times to ${s.place}`,
  (s) => `book recommendation from ${s.person2}`,
];

export interface Note {
  readonly content: string;
  readonly tags: string[];
}

export interface NoteGenerator {
  note(): Note;
  /** A query never returned before by this generator. */
  query(): string;
}

export function createNoteGenerator(seed: number): NoteGenerator {
  const random = createRandom(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
  const scene = (): Scene => {
    const person = pick(PEOPLE);
    let person2 = pick(PEOPLE);
    while (person2 === person) person2 = pick(PEOPLE);
    return {
      person,
      person2,
      company: pick(COMPANIES),
      place: pick(PLACES),
      topic: pick(WORK_TOPICS),
      personal: pick(PERSONAL_TOPICS),
      reading: pick(READING),
      day: pick(DAYS),
      month: pick(MONTHS),
      time: pick(TIMES),
      amount: 5 + Math.floor(random() * 95),
    };
  };
  const issued = new Set<string>();
  return {
    note() {
      const s = scene();
      const [kind, first] = pick(NOTE_TEMPLATES);
      const sentences = [first(s)];
      const extra = Math.floor(random() * 4); // 0-3 more: 1-4 sentences
      const used = new Set<number>();
      while (sentences.length < 1 + extra) {
        const index = Math.floor(random() * FOLLOW_UPS.length);
        if (used.has(index)) continue;
        used.add(index);
        sentences.push((FOLLOW_UPS[index] as (s: Scene) => string)(s));
      }
      const tags: string[] = [kind];
      if (kind !== 'personal' && kind !== 'reading' && random() < 0.6) tags.push(s.topic[1]);
      if (kind !== 'personal' && random() < 0.4) tags.push(s.company[1]);
      return { content: sentences.join(' '), tags };
    },
    query() {
      for (;;) {
        const text = pick(QUERY_TEMPLATES)(scene());
        if (!issued.has(text)) {
          issued.add(text);
          return text;
        }
      }
    },
  };
}
