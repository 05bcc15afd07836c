import { describe, expect, it } from 'vitest';
import { confidenceOf, grounding, memoryDate } from '../../src/core/answers/ask-service.js';
import { dateReason, reminderReason } from '../../src/core/answers/reasons.js';
import { RemindService, timeframeStart } from '../../src/core/answers/remind-service.js';
import { headWords } from '../../src/core/answers/question.js';
import { contentWords, countTokens, properNouns, resolveMonth, resolveRelativeDate, resolveWeekday, sentences, sharedNames, stem, termsOf, wordKey } from '../../src/core/answers/text.js';
import type { MemoryService, SearchInput } from '../../src/core/memory-service.js';
import type { MemoryRecord } from '../../src/core/types.js';
import { ABSTENTION_SIGNALS, abstains, BuiltinLanguageModel, listedParts, LINE_FEATURES, type AnswerRules } from '../../src/providers/builtin/builtin-language-model.js';
import { asksForNamedThing, isCompound, isListQuestion, questionKind, withFullNames } from '../../src/providers/builtin/question-forms.js';
import { elaborated, gapFiller, headPhrase, objectBefore, reasonOf, withoutTimes } from '../../src/providers/builtin/gap-filler.js';
import { holderOf, tiePhrase } from '../../src/providers/builtin/typed-spans.js';
import type { AnswerChunk, AnswerSource, EmbeddingModel } from '../../src/providers/spec.js';
import { fakeEmbedding } from '../helpers/fake-ollama.js';

/** A deterministic embedder (hashed bag of words) so the answerer's ranking is reproducible. */
const embedder: EmbeddingModel & { calls: number } = {
  provider: 'test',
  modelId: 'test/bag-of-words',
  dimension: 256,
  maxEmbeddingsPerCall: 64,
  calls: 0,
  async init() {},
  async doEmbed(texts) {
    this.calls += 1;
    return texts.map((text) => Float32Array.from(fakeEmbedding(text, 256)));
  },
  async close() {},
};

const MAY_8 = Date.parse('2023-05-08T13:56:00Z');
const source = (id: string, content: string, relevance = 0.7, date = MAY_8): AnswerSource => ({ id, title: content.slice(0, 30), content, relevance, date });

/** The plain rules (best sentence, its typed phrase); each fitted rule is tested on its own below. */
const PLAIN: AnswerRules = { window: 1, proximity: 0, focusWords: 0, questionPenalty: 0, abstainOnQuestion: false, listItems: 1, fillerPenalty: 0, speakerWeight: 0, newsWeight: 0, trimEcho: false, quotedTitles: false };

async function answer(question: string, sources: AnswerSource[], tier: 'fast' | 'default' | 'smart' = 'default', rules: AnswerRules = PLAIN) {
  const chunks: AnswerChunk[] = [];
  for await (const chunk of new BuiltinLanguageModel(embedder, rules).answer({ question, sources, tier })) chunks.push(chunk);
  const text = chunks.map((chunk) => (chunk.type === 'delta' ? chunk.text : '')).join('');
  const finish = chunks.at(-1);
  if (finish?.type !== 'finish') throw new Error('no finish chunk');
  return { text, finish, deltas: chunks.length - 1 };
}

describe('the built-in answerer\'s fitted rules', () => {
  const turns = [
    source('q', 'Tim: Which team did you sign with in May?', 0.8),
    source('a', 'John: I signed with the Minnesota Wolves, it was a dream come true.', 0.7),
  ];

  it('questionPenalty: the line that asks the question loses to the line that answers it', async () => {
    expect((await answer('Which team did John sign with?', turns, 'default')).text).toBe('Tim: Which team did you sign with in May?');
    const penalised = await answer('Which team did John sign with?', turns, 'default', { ...PLAIN, questionPenalty: 0.3 });
    expect(penalised.text).toBe('John: I signed with the Minnesota Wolves, it was a dream come true.');
    expect(penalised.finish.cited).toEqual(['a']);
  });

  it('abstainOnQuestion: when the best line is still a question, no answer (the ask reports noResult)', async () => {
    const onlyQuestions = [source('q', 'Tim: Which team did you sign with in May?', 0.8)];
    const { text, finish } = await answer('Which team did John sign with?', onlyQuestions, 'default', { ...PLAIN, abstainOnQuestion: true });
    expect(text).toBe('');
    expect(finish.cited).toEqual([]);
    // With an answering line in reach, the penalty lets it lead and the answerer answers.
    expect((await answer('Which team did John sign with?', turns, 'default', { ...PLAIN, questionPenalty: 0.3, abstainOnQuestion: true })).text).toContain('Minnesota Wolves');
  });

  it('fillerPenalty: a reply that tells nothing beyond the question\'s words loses to the line that tells', async () => {
    const replies = [
      source('f', 'Nate: No problem, Joanna!', 0.95),
      source('r', 'Joanna: I will make the vegan ice cream recipe for my family this weekend.', 0.7),
    ];
    const question = 'What did Joanna plan to do with the recipe Nate shared?';
    expect((await answer(question, replies)).text).toBe('Nate: No problem, Joanna!');
    const penalised = await answer(question, replies, 'default', { ...PLAIN, fillerPenalty: 0.3 });
    expect(penalised.text).toBe('Joanna: I will make the vegan ice cream recipe for my family this weekend.');
    expect(penalised.finish.cited).toEqual(['r']);
    // A saved note (no speaker) is never filler, however short: it says what it means.
    const notes = [source('n', "Mum's birthday is 2 February.", 0.9), source('o', "Booked a table for Mum's birthday dinner on 7 March at the Italian place.", 0.8)];
    expect((await answer("When is Mum's birthday?", notes, 'default', { ...PLAIN, fillerPenalty: 0.3 })).finish.cited).toEqual(['n']);
  });

  it('focusWords: an untyped question gets the words after its own in the best clause', async () => {
    const research = [source('m', 'Caroline: I have been researching adoption agencies lately, it has been a lot.')];
    expect((await answer('What did Caroline research?', research, 'default', { ...PLAIN, focusWords: 5 })).text).toBe('adoption agencies lately');
    expect((await answer('What did Caroline research?', research, 'default', { ...PLAIN, focusWords: 2 })).text).toBe('adoption agencies');
    expect((await answer('What did Caroline research?', research, 'default')).text).toBe('Caroline: I have been researching adoption agencies lately, it has been a lot.');
  });

  it('speakerWeight: the named person\'s own turn beats the other speaker echoing the question', async () => {
    const selfCare = [
      source('echo', "Caroline: Great that you're prioritizing self-care, Melanie.", 0.9),
      source('own', 'Melanie: I carve out some me-time each day for running, reading or playing my violin.', 0.8),
    ];
    const question = 'How does Melanie prioritize self-care?';
    expect((await answer(question, selfCare)).finish.cited).toEqual(['echo']);
    const preferred = await answer(question, selfCare, 'default', { ...PLAIN, speakerWeight: 0.5 });
    expect(preferred.finish.cited).toEqual(['own']);
    // "Mel" in the question names the speaker "Melanie" too; a question naming nobody who speaks changes nothing.
    expect((await answer('How does Mel prioritize self-care?', selfCare, 'default', { ...PLAIN, speakerWeight: 0.5 })).finish.cited).toEqual(['own']);
    expect((await answer('How do people prioritize self-care?', selfCare, 'default', { ...PLAIN, speakerWeight: 0.5 })).finish.cited).toEqual(['echo']);
  });

  it('newsWeight: the line that adds to the question\'s words beats the one that repeats them', async () => {
    const race = [
      source('echo', 'Melanie: I ran a charity race last Saturday.', 0.9),
      source('news', 'Melanie: Afterwards I started to realize that self-care is really important for everyone.', 0.75),
    ];
    const question = 'What did Melanie realize after the charity race last Saturday?';
    expect((await answer(question, race)).finish.cited).toEqual(['echo']);
    expect((await answer(question, race, 'default', { ...PLAIN, newsWeight: 0.8 })).finish.cited).toEqual(['news']);
  });

  it('trimEcho: an untyped question gets its line less the speaker and the words that echo the question', async () => {
    const realised = [source('m', "Melanie: I'm starting to realize that self-care is really important.", 0.9)];
    const trimmed = await answer('What did Melanie realize?', realised, 'default', { ...PLAIN, trimEcho: true });
    expect(trimmed.text).toBe('starting to realize that self-care is really important');
    expect(trimmed.finish.cited).toEqual(['m']);
    // A line that is all echo keeps its words rather than answering nothing.
    const echo = [source('e', 'Melanie: Realize it.', 0.9)];
    expect((await answer('What did Melanie realize?', echo, 'default', { ...PLAIN, trimEcho: true })).text).toBe('Melanie: Realize it.');
    // Typed questions keep their typed phrase.
    expect((await answer('How many races did Melanie run?', [source('n', 'Melanie: I ran three races this year.')], 'default', { ...PLAIN, trimEcho: true })).text).toBe('three races');
  });

  it('quotedTitles: an untyped question gets the title its answering line quotes', async () => {
    const books = [source('b', 'Melanie: I loved reading "Charlotte\'s Web" as a kid, it was so cool.', 0.9)];
    const question = 'What was Melanie\'s favorite book from her childhood?';
    expect((await answer(question, books, 'default', { ...PLAIN, quotedTitles: true })).text).toBe("Charlotte's Web");
    expect((await answer(question, books)).text).toBe('Melanie: I loved reading "Charlotte\'s Web" as a kid, it was so cool.');
    // A quote of the question's own words is no answer: the line answers whole.
    const echoed = [source('e', 'Melanie: My favorite is the "childhood book" kind of story.', 0.9)];
    expect((await answer(question, echoed, 'default', { ...PLAIN, quotedTitles: true })).text).toBe('Melanie: My favorite is the "childhood book" kind of story.');
  });

  it('window and proximity: a typed candidate of a lower sentence can win by lying next to the question\'s words', async () => {
    const places = [
      source('x', 'Maria: The shelter team talked about Paris all evening.', 0.8),
      source('y', 'Maria: Last spring we moved to Denver with the shelter.', 0.6),
    ];
    // "go" is in neither line (with "move", the stem of "moved" would make the lower line the best).
    const question = 'Where did the shelter go?';
    // The best sentence holds no place after in/at/to: alone, it answers whole.
    expect((await answer(question, places, 'default')).text).toBe('Maria: The shelter team talked about Paris all evening.');
    expect((await answer(question, places, 'default', { ...PLAIN, window: 3, proximity: 0.5 })).text).toBe('Denver');
  });
});

describe('the built-in answerer\'s lists and abstention', () => {
  const desserts = [
    source('a', 'Maria: I made a banana split sundae for the kids on Sunday.', 0.8),
    source('b', 'Maria: I made a peach cobbler for the church bake sale last week.', 0.75),
    source('c', 'John: The weather was rainy all week.', 0.3),
  ];

  it('isListQuestion: plural and "both" questions ask for several things; single ones do not', () => {
    for (const question of ['What desserts has Maria made?', 'What are some changes Caroline has faced?', 'Which city have both Jean and John visited?', 'What are the names of John\'s children?', 'What board games has Nate played?', 'What events for veterans has John participated in?']) {
      expect(isListQuestion(question), question).toBe(true);
    }
    // A plural head of several words asks for a list in the perfect only ("has played" piles up over time);
    // "What kind of books does..." asks for one kind.
    for (const question of ['What did Maria make?', 'What is the name of Maria\'s puppy?', 'Where did Melanie go camping?', 'What kind of books does Nate enjoy?', 'Which dairy-free dessert flavors does Nate enjoy?', 'What kind of films has Joanna liked?']) {
      expect(isListQuestion(question), question).toBe(false);
    }
  });

  it('listItems: a list question is answered from several memories, "X and Y", citing each', async () => {
    const single = await answer('What desserts has Maria made?', desserts);
    expect(single.text).toBe('Maria: I made a banana split sundae for the kids on Sunday.');
    const list = await answer('What desserts has Maria made?', desserts, 'default', { ...PLAIN, listItems: 3 });
    expect(list.text).toBe('Maria: I made a banana split sundae for the kids on Sunday and Maria: I made a peach cobbler for the church bake sale last week');
    expect(list.finish.cited).toEqual(['a', 'b']);
    // A line far below the best one is no item of the list: the rainy week stays out.
    expect(list.text).not.toContain('rainy');
    // With focus phrases the items are phrases.
    const focused = await answer('What desserts has Maria made?', desserts, 'default', { ...PLAIN, listItems: 3, focusWords: 6 });
    expect(focused.text).toBe('banana split sundae for the kids and peach cobbler for the church bake');
    // A question for one thing keeps one answer.
    expect((await answer('What did Maria make for the kids?', desserts, 'default', { ...PLAIN, listItems: 3 })).finish.cited).toEqual(['a']);
  });

  it('reports the abstention signals of a passage answer: a name the answering memory does not hold', async () => {
    const race = [source('m', 'Melanie: I ran a charity race for mental health last Saturday.', 0.9)];
    const model = new BuiltinLanguageModel(embedder, PLAIN);
    const swapped = await model.extract({ question: 'What did Caroline realize after her charity race?', sources: race, tier: 'default' });
    const own = await model.extract({ question: 'What did Melanie realize after her charity race?', sources: race, tier: 'default' });
    const index = (name: (typeof ABSTENTION_SIGNALS)[number]) => ABSTENTION_SIGNALS.indexOf(name);
    expect(swapped.signals).toHaveLength(ABSTENTION_SIGNALS.length);
    expect(swapped.signals?.[index('nameMissingLead')]).toBe(1);
    expect(swapped.signals?.[index('nameMissingAll')]).toBe(1);
    expect(own.signals?.[index('nameMissingLead')]).toBe(0);
    expect(own.signals?.[index('topRelevance')]).toBe(0.9);
    // "Jon" is not in "John": names match whole words.
    const jon = await model.extract({ question: 'What does Jon bake?', sources: [source('j', 'John: I bake sourdough every weekend.')], tier: 'default' });
    expect(jon.signals?.[index('nameMissingLead')]).toBe(1);
    // A possessive is its name: "Anna's birthday" holds Anna, so the question is not refused for lacking her.
    const anna = await model.extract({ question: 'When is Anna\'s birthday?', sources: [source('a', 'My sister Anna\'s birthday is on 2 February.')], tier: 'default' });
    expect(anna.signals?.[index('nameMissingAll')]).toBe(0);
    expect(anna.text).toBe('2 February');
    // The question's words are in another speaker's turn, not in the named person's: the person is swapped.
    const turns = [race[0] as AnswerSource, source('c', 'Caroline: I painted a sunset with my kids last weekend.', 0.5)];
    const gap = await model.extract({ question: 'What did Caroline realize after her charity race?', sources: turns, tier: 'default' });
    const noGap = await model.extract({ question: 'What did Melanie realize after her charity race?', sources: turns, tier: 'default' });
    expect(gap.signals?.[index('speakerGap')]).toBeGreaterThan(0.2);
    expect(noGap.signals?.[index('speakerGap')]).toBe(0);
    expect(swapped.signals?.[index('speakerGap')]).toBe(0);
    // A typed question with no phrase of its type to answer with.
    const where = await model.extract({ question: 'Where did Melanie run?', sources: race, tier: 'default' });
    expect(where.signals?.[index('typedMissing')]).toBe(1);
  });

  it('reports relationMissing, lexicalGap, leadByOther and othersOnly: the asked words sit in another person\'s turns', async () => {
    const model = new BuiltinLanguageModel(embedder, PLAIN);
    const index = (name: (typeof ABSTENTION_SIGNALS)[number]) => ABSTENTION_SIGNALS.indexOf(name);
    const turns = [
      source('m', 'Melanie: I play the clarinet in a community band every Thursday.', 0.9),
      source('c', 'Caroline: Wow, Mel, that sounds lovely! I mostly paint landscapes and go hiking.', 0.8),
    ];
    const swapped = await model.extract({ question: 'What instrument does Caroline play in the community band?', sources: turns, tier: 'default' });
    const own = await model.extract({ question: 'What instrument does Melanie play in the community band?', sources: turns, tier: 'default' });
    // Caroline's memories hold none of "instrument", "play", "community", "band"; Melanie's hold three of four.
    expect(swapped.signals?.[index('relationMissing')]).toBe(1);
    expect(own.signals?.[index('relationMissing')]).toBeCloseTo(0.25, 5);
    expect(swapped.signals?.[index('lexicalGap')]).toBeGreaterThan(0.3);
    expect(own.signals?.[index('lexicalGap')]).toBe(0);
    expect(swapped.signals?.[index('leadByOther')]).toBe(1);
    expect(own.signals?.[index('leadByOther')]).toBe(0);
    // "play", "community", "band" are Melanie's words only: three of the four asked words only others say.
    expect(swapped.signals?.[index('othersOnly')]).toBeCloseTo(0.75, 5);
    expect(own.signals?.[index('othersOnly')]).toBe(0);
    // A question naming no one, or memories naming no one it names, has nothing to miss.
    const unnamed = await model.extract({ question: 'What instrument is played in the community band?', sources: turns, tier: 'default' });
    expect(unnamed.signals?.[index('relationMissing')]).toBe(0);
    expect(unnamed.signals?.[index('leadByOther')]).toBe(0);
    expect(unnamed.signals?.[index('othersOnly')]).toBe(0);
    const stranger = await model.extract({ question: 'What instrument does Priya play?', sources: turns, tier: 'default' });
    expect(stranger.signals?.[index('relationMissing')]).toBe(0);
  });

  it('lineWeights: a fitted line ranker replaces the hand-set score for all but "when" questions', async () => {
    const lines = [
      source('a', 'Caroline: I loved reading books as a kid, books were my escape.', 0.9),
      source('b', 'Caroline: My favourite is "Becoming Nicole" by Amy Ellis Nutt.', 0.6),
    ];
    const quoted = LINE_FEATURES.indexOf('quoted');
    const weights = LINE_FEATURES.map((_, i) => (i === quoted ? 5 : 0));
    expect((await answer('What book does Caroline love?', lines)).finish.cited).toEqual(['a']);
    const ranked = await answer('What book does Caroline love?', lines, 'default', { ...PLAIN, lineWeights: weights });
    expect(ranked.finish.cited).toEqual(['b']);
    // The features the fit reads are the ranker's: one vector per line, LINE_FEATURES long, each in [0, 1].
    const model = new BuiltinLanguageModel(embedder, PLAIN);
    const features = await model.lines({ question: 'What book does Caroline love?', sources: lines, tier: 'default' });
    expect(features?.map((line) => line.sourceId)).toEqual(['a', 'b']);
    for (const line of features ?? []) {
      expect(line.features).toHaveLength(LINE_FEATURES.length);
      expect(line.features.every((value) => value >= 0 && value <= 1)).toBe(true);
    }
    expect(features?.[1]?.features[quoted]).toBe(1);
    // "When" keeps the hand-set score (its answer is the line's date) and has no lines to fit on.
    expect(await model.lines({ question: 'When did Caroline read it?', sources: lines, tier: 'default' })).toBeUndefined();
    const when = await answer('When did Caroline love books?', lines, 'default', { ...PLAIN, lineWeights: weights });
    expect(when.finish.cited).toEqual(['a']);
  });

  it('reply and head: a line whose memory replies to the question asked, or names the kind asked for, says so', async () => {
    const turns = [
      // The question itself, asked by the other speaker: it shares the asked words, the answer does not.
      source('q', 'Caroline: How long have you been into art, Mel?', 0.9),
      { ...source('a', 'Melanie: Seven years now! I find it so freeing.', 0.6), context: 'Caroline: How long have you been into art, Mel?' },
      { ...source('b', 'Melanie: The kids loved the beach.', 0.5), context: 'Caroline: Nice weather today!' },
    ];
    const reply = LINE_FEATURES.indexOf('reply');
    const model = new BuiltinLanguageModel(embedder, PLAIN);
    const lines = await model.lines({ question: 'How long has Melanie been into art?', sources: turns, tier: 'default' });
    const bySource = (id: string) => (lines ?? []).filter((line) => line.sourceId === id).map((line) => line.features[reply]);
    // Every line of the replying memory carries its context's match; a context that asks nothing gives 0.
    expect(bySource('a').every((value) => (value ?? 0) > 0.5)).toBe(true);
    expect(bySource('b')).toEqual([0]);
    expect(bySource('q')).toEqual([0]);
    const weights = LINE_FEATURES.map((_, i) => (i === reply ? 5 : 0));
    const ranked = await answer('What did Melanie say about how long she has been into art?', turns, 'default', { ...PLAIN, lineWeights: weights });
    expect(ranked.finish.cited).toEqual(['a']);

    const head = LINE_FEATURES.indexOf('head');
    const workshops = [source('x', 'Caroline: Last Friday I went to an LGBTQ+ counseling workshop.', 0.6), source('y', 'Caroline: I attended the parade with friends.', 0.9)];
    const headLines = await model.lines({ question: 'What workshop did Caroline attend?', sources: workshops, tier: 'default' });
    expect(headLines?.map((line) => line.features[head])).toEqual([1, 0]);
    const byHead = await answer('What workshop did Caroline attend?', workshops, 'default', { ...PLAIN, lineWeights: LINE_FEATURES.map((_, i) => (i === head ? 5 : 0)) });
    expect(byHead.finish.cited).toEqual(['x']);
  });

  it('"who" is answered with a name, never with a time that opens the line ("Last Friday")', async () => {
    const lines = [source('a', 'Last Friday Matt Patterson played at my daughter\'s birthday.', 0.8)];
    expect((await answer('Who played at the birthday?', lines)).text).toBe('Matt Patterson');
    // Nor with the person a reply addresses ("Hey Caroline!") or a time word ("Last night").
    const replies = [
      source('a', 'Melanie: Hey Caroline! Last night we had a concert for my daughter.', 0.9),
      source('b', 'Melanie: Thanks, Caroline! It was Matt Patterson, he is so talented!', 0.8),
    ];
    expect((await answer('Who played the concert for Melanie\'s daughter?', replies, 'default', { ...PLAIN, window: 4 })).text).toBe('Matt Patterson');
    expect((await answer('Who played the concert for Melanie\'s daughter?', [source('c', 'Last night Tom played for us.', 0.9)])).text).toBe('Tom');
  });

  it('listNames: a list question is answered with the names and titles of its lines, comma separated', async () => {
    const trips = [
      source('a', 'Jon: I loved Paris, Gina, the dance shows there were unreal.', 0.9),
      source('b', 'Jon: Last spring I went to Rome with my cousin Marco.', 0.85),
      source('c', 'Gina: I stayed home and worked on the store.', 0.3),
    ];
    const rules = { ...PLAIN, listItems: 3 };
    const names = await answer('Which cities has Jon visited?', trips, 'default', { ...rules, listNames: true });
    // Gina is a speaker of the conversation, addressed in the line: not an item.
    expect(names.text).toBe('Paris, Rome, Marco');
    expect(names.finish.cited).toEqual(['a', 'b']);
    expect((await answer('Which cities has Jon visited?', trips, 'default', rules)).text).toContain(' and ');
    // A line that names nothing gives its phrase.
    const plain = [source('a', 'Maria: I baked a peach cobbler for the bake sale.', 0.9), source('b', 'Maria: I made banana bread for the kids.', 0.85)];
    expect((await answer('What desserts has Maria made?', plain, 'default', { ...rules, listNames: true })).text).toBe('Maria: I baked a peach cobbler for the bake sale., Maria: I made banana bread for the kids.');
  });

  it('listParts: a list question gets the things its lines list, each on its own', async () => {
    const hobbies = [
      source('a', 'Melanie: Pottery, painting and camping with the kids keep me sane.', 0.9),
      source('b', 'Melanie: I also started swimming last month.', 0.85),
    ];
    const rules = { ...PLAIN, listItems: 3, trimEcho: true, listNames: true };
    const parts = await answer('What activities does Melanie do?', hobbies, 'default', { ...rules, listParts: true });
    expect(parts.text.split(', ')).toEqual(['Pottery', 'painting', 'camping with the kids keep me sane', 'started swimming last month']);
    expect(parts.finish.cited).toEqual(['a', 'b']);
    // Without the rule each line is one item.
    expect((await answer('What activities does Melanie do?', hobbies, 'default', rules)).text).toBe('Pottery, painting and camping with the kids keep me sane, started swimming last month');
    // A phrase that lists nothing, or only idle words, stays whole.
    expect(listedParts('a long walk by the sea', new Set())).toEqual(['long walk by the sea']);
    expect(listedParts('and, or', new Set())).toEqual(['and, or']);
  });

  it('the memory-level line features: relevance, the memory\'s and its context\'s match, word pairs, names, a lone line', async () => {
    const turns = [
      source('a', 'Melanie: I ran a charity race for mental health. It felt great.', 0.9),
      { ...source('b', 'Melanie: Self-care is really important.', 0.5), context: 'Caroline: What did the charity race teach you?' },
    ];
    const model = new BuiltinLanguageModel(embedder, { ...PLAIN, trimEcho: true });
    const lines = (await model.lines({ question: 'What did Melanie realize after the charity race?', sources: turns, tier: 'default' })) ?? [];
    const feature = (name: (typeof LINE_FEATURES)[number]) => lines.map((line) => line.features[LINE_FEATURES.indexOf(name)]);
    expect(lines.map((line) => line.sourceId)).toEqual(['a', 'a', 'b']);
    expect(feature('relevance')).toEqual([0.9, 0.9, 0.5]);
    // The second line of "a" shares no word with the question but its speaker's name; its memory shares more.
    expect(feature('memoryLexical')[1]).toBeGreaterThan((feature('lexical')[1] ?? 0) + 0.3);
    expect(feature('contextLexical')[2]).toBeGreaterThan(0.3);
    expect(feature('contextLexical')[0]).toBe(0);
    // "charity race" of the question's three pairs ("melanie realiz", "realiz charity", "charity race").
    expect(feature('pairs')).toEqual([1 / 3, 0, 0]);
    expect(feature('namesHeld')).toEqual([1, 1, 1]);
    expect(feature('alone')).toEqual([0, 0, 1]);
    // Each line comes with the answer it would give: here, the line less its echo.
    expect(lines[2]?.answer).toBe('Self-care is really important');
  });

  it('namedThings: "what book / which city" is answered with the title or name of the best lines', async () => {
    const lines = [
      source('q', 'Gina: What are you reading these days, Jon?', 0.95),
      source('a', 'Jon: I am halfway through The Lean Startup and it is changing how I plan.', 0.9),
    ];
    const rules = { ...PLAIN, window: 3, trimEcho: true };
    const named = await answer('What book is Jon currently reading?', lines, 'default', { ...rules, namedThings: true });
    expect(named.text).toBe('The Lean Startup');
    expect(named.finish.cited).toEqual(['a']);
    // A quoted title comes before other names; the asked person and the speakers are never the answer.
    const quoted = [source('a', 'Melanie: Caroline, I loved reading "Charlotte\'s Web" in Paris as a kid.', 0.9)];
    expect((await answer('Which book did Melanie love?', quoted, 'default', { ...rules, namedThings: true, quotedTitles: true })).text).toBe("Charlotte's Web");
    // No name in the best lines: the line's phrase answers as before; without the rule, the phrase too.
    const nameless = [source('a', 'Jon: a thick one about starting companies.', 0.9)];
    expect((await answer('What book is Jon reading?', nameless, 'default', { ...rules, namedThings: true })).text).toBe('thick one about starting companies');
    expect((await answer('What book is Jon currently reading?', lines, 'default', rules)).text).not.toBe('The Lean Startup');
    expect(asksForNamedThing('Which city have both Jean and John visited?')).toBe(true);
    expect(asksForNamedThing('What is the name of her dog?')).toBe(true);
    expect(asksForNamedThing('What did Caroline research?')).toBe(false);
    expect(asksForNamedThing('What pet does Caroline have?')).toBe(false);
    // Plurals and one modifier ask for names too.
    expect(asksForNamedThing('Which cities has Priya lived in?')).toBe(true);
    expect(asksForNamedThing('What European countries has Dan seen?')).toBe(true);
    expect(asksForNamedThing("What are Priya's cats' names?")).toBe(true);
    expect(asksForNamedThing('What stories did Dan tell?')).toBe(false);
  });

  it('namedLists: a list of names is taken from the lines that name something, not from the best lines', async () => {
    const trips = [
      source('a', 'Priya: Travelling is my favourite way to unwind, honestly.', 0.95),
      source('b', 'Priya: Wow, the food in Lisbon was the best part of that trip.', 0.9),
      source('c', 'Priya: Sure, it was great - I loved every day of it.', 0.85),
      source('d', 'Priya: Dan, remember the trams we took in Vienna?', 0.8),
      source('e', 'Priya: My spring trip to Kraków was short but lovely.', 0.7),
    ];
    const rules = { ...PLAIN, window: 3, listItems: 3, trimEcho: true, listNames: true, listParts: true, quotedTitles: true };
    const named = await answer('Which cities has Priya visited?', trips, 'default', { ...rules, namedLists: true });
    // The asking line (d) and the lines naming nothing are passed over; an interjection is no name.
    expect(named.text).toBe('Lisbon, Kraków');
    expect(named.finish.cited).toEqual(['b', 'e']);
    // Without the rule the best lines' phrases fill the list.
    expect((await answer('Which cities has Priya visited?', trips, 'default', rules)).text).toContain('favourite way to unwind');
    // Works are not answered by their makers' names.
    const club = [source('k', 'Priya: Our picks for winter are The Overstory by Richard Powers, then Piranesi by Susanna Clarke.', 0.9)];
    expect((await answer('Which books has Priya picked?', club, 'default', { ...rules, namedLists: true })).text).toBe('The Overstory, Piranesi');
    expect((await answer('Which authors has Priya picked?', club, 'default', { ...rules, namedLists: true })).text).toContain('Susanna Clarke');
    // Nothing named anywhere: the lines' phrases answer as before.
    const nameless = trips.filter((trip) => trip.id === 'a' || trip.id === 'c');
    expect((await answer('Which cities has Priya visited?', nameless, 'default', { ...rules, namedLists: true })).text).toContain('favourite way to unwind');
  });

  it('abstention: the fitted model refuses the swapped-name question and answers the right one', async () => {
    const race = [source('m', 'Melanie: I ran a charity race for mental health last Saturday.', 0.9)];
    const weights = ABSTENTION_SIGNALS.map((name) => (name === 'nameMissingLead' ? 4 : 0));
    const rules: AnswerRules = { ...PLAIN, abstention: { bias: -2, weights } };
    const refused = await answer('What did Caroline do for mental health?', race, 'default', rules);
    expect(refused.text).toBe('');
    expect(refused.finish.cited).toEqual([]);
    expect((await answer('What did Melanie do for mental health?', race, 'default', rules)).text).toContain('charity race');
    expect(abstains(undefined, [1, 1, 1, 1, 1, 1])).toBe(false);
    expect(abstains({ bias: -2, weights }, undefined)).toBe(false);
    // Fact answers stand on the graph, not on passages: the abstention model never refuses them.
    const fact = await new BuiltinLanguageModel(embedder, { ...PLAIN, abstention: { bias: 10, weights } }).extract({
      question: 'Who is the CFO of Acme Corp?',
      sources: race,
      tier: 'default',
      facts: [{ statement: 'Sarah Chen is the CFO of Acme Corp', answer: 'Sarah Chen', confidence: 0.9, sourceId: 'm', primary: true }],
    });
    expect(fact.text).toBe('Sarah Chen');
  });
});

describe('the built-in extractive answerer', () => {
  it('answers with the sentence that matches the question, whole, citing its memory', async () => {
    const { text, finish } = await answer('What did Melanie paint last year?', [
      source('m1', 'Caroline: I went to a LGBTQ support group yesterday. It was really powerful.'),
      source('m2', 'Melanie: I painted a lake sunrise last year. Painting calms me down after work.', 0.6),
    ], 'fast');
    expect(text).toBe('Melanie: I painted a lake sunrise last year.');
    expect(finish).toMatchObject({ model: 'builtin/extractive', cited: ['m2'], usage: { completionTokens: 0 } });
    expect(finish.support).toBeGreaterThan(0.3);
  });

  it('repeats the speaker for a later sentence of a turn, keeping names intact', async () => {
    const { text } = await answer('What calms Melanie down?', [
      source('m2', 'Melanie: I painted a lake sunrise last year. Painting calms me down after a long week at work.'),
    ], 'fast');
    expect(text).toBe('Melanie: Painting calms me down after a long week at work.');
  });

  it('answers a "when" question with the date, resolving relative phrases against the memory date', async () => {
    const caroline = [source('m1', 'Caroline: I went to a LGBTQ support group yesterday. It was really powerful. [8 May, 2023]')];
    expect((await answer('When did Caroline go to the LGBTQ support group?', caroline)).text).toBe('7 May 2023');
    // The smart tier adds the sentence the date comes from.
    expect((await answer('When did Caroline go to the LGBTQ support group?', caroline, 'smart')).text).toBe(
      '7 May 2023 — Caroline: I went to a LGBTQ support group yesterday.',
    );
    const explicit = await answer('When is the dentist?', [source('d', 'Dentist appointment on 12 June 2023 at 9am.')]);
    expect(explicit.text).toBe('12 June 2023');
    const dateless = await answer('When did I buy the bike?', [source('b', 'Bought a red bike for the commute.', 0.7, Date.parse('2024-02-03T10:00:00Z'))]);
    expect(dateless.text).toBe('3 February 2024');
    // "How long ago" asks for the span, not the date it leads to.
    const ago = [source('g', 'Caroline: I got this necklace for my 18th birthday ten years ago. [27 June, 2023]')];
    expect((await answer('How long ago was Caroline\'s 18th birthday?', ago)).text).toBe('Ten years ago');
    expect((await answer('When was Caroline\'s 18th birthday?', ago)).text).toBe('2013');
    // A question that asks two things gets the sentence too.
    const both = await answer('When is the dentist and what for?', [source('d', 'Dentist appointment on 12 June 2023 at 9am.')]);
    expect(both.text).toMatch(/^12 June 2023 — Dentist appointment/);
  });

  it('answers who, where and how many with the phrase that answers, else with the sentence', async () => {
    const team = [source('t', 'The new CEO of Acme Corp is Sarah Chen; she joined from Globex.')];
    expect((await answer('Who is the CEO of Acme Corp?', team)).text).toBe('Sarah Chen');
    const trip = [source('p', 'Melanie: We went camping near Lake Tahoe with the kids last summer.')];
    expect((await answer('Where did Melanie go camping?', trip)).text).toBe('Lake Tahoe');
    const bake = [source('r', 'Bake it for 45 minutes at 180 degrees.')];
    expect((await answer('How long do I bake the lasagna?', bake)).text).toBe('45 minutes');
    expect((await answer('How long do I bake the lasagna?', bake, 'smart')).text).toBe('45 minutes — Bake it for 45 minutes at 180 degrees.');
    const nameless = [source('n', 'Melanie: I ran a charity race for mental health last Saturday.')];
    expect((await answer('Who ran the charity race?', nameless)).text).toBe('Melanie');
    const visit = [source('v', 'Ana from Globex visits Lisbon on 3 December for the data platform review.')];
    expect((await answer('Where is Ana going?', visit)).text).toBe('Lisbon');
    expect((await answer('Who visits Lisbon?', visit)).text).toBe('Ana');
    const party = [source('y', 'Caroline and Melanie went to the party at Jon\'s place.')];
    expect((await answer('Who went to the party?', party)).text).toBe('Caroline and Melanie');
    const none = [source('x', 'the kids loved the pottery class.')];
    expect((await answer('Where was the pottery class?', none)).text).toBe('the kids loved the pottery class.');
    // A number the question gives is not the answer; a unit ends before a preposition.
    const run = [source('k', 'Ran 10 km in 52 minutes along the canal this morning; knee felt fine.')];
    expect((await answer('How long did my 10 km run take?', run)).text).toBe('52 minutes');
    expect((await answer('How many km did I run?', run)).text).toBe('10 km');
    // A frequency keeps its period, and a price its "a month".
    expect((await answer('How often do I water the ferns?', [source('f', 'Water the ferns three times a week, the cactus once a month.')])).text).toBe('three times a week');
    expect((await answer('How often do we visit Gran?', [source('g', 'We visit Gran once or twice a year at most.')])).text).toBe('once or twice a year');
    expect((await answer('How much is the internet?', [source('i', 'Internet renewed: 45 euros a month from January.')])).text).toBe('45 euros a month');
    // "How much" asks for money when the line gives some; a month's short form names no one.
    const renewal = [source('r', 'Meeting notes 3 Nov: Acme renewal signed for 2 years at 48k per year; next review with Priya Nair in March.')];
    expect((await answer('How much is the Acme renewal per year?', renewal)).text).toBe('48k per year');
    expect((await answer('How many years is the Acme renewal for?', renewal)).text).toBe('2 years');
    expect((await answer('Who do I review the Acme renewal with?', renewal, 'default', { ...PLAIN, window: 3 })).text).toBe('Priya Nair');
    // A title's period ends no sentence: the landlord is Mr. Haddad, not "Mr".
    const rent = [source('h', 'Our landlord is Mr. Haddad; rent of 1,450 euros is due on the 3rd of each month.')];
    expect((await answer('Who is our landlord?', rent)).text).toBe('Mr. Haddad');
    const dentist = [source('d', 'Dentist appointment with Dr. Okafor on 14 December at 9:30, bring the insurance card.', 0.7, Date.parse('2026-11-28T06:30:00Z'))];
    expect((await answer('When is the dentist appointment?', dentist)).text).toBe('14 December');
  });

  it('answers "who is the <role>" with the name set beside the role before the sentence\'s subject', async () => {
    const cto = [source('c', 'Kofi started as head of data at Brightline in September, he reports to the CTO, Ines Duarte.')];
    expect((await answer('Who is the CTO of Brightline?', cto)).text).toBe('Ines Duarte');
    const after = [source('a', 'Ines Duarte, our CTO, signed off on the budget with Kofi.')];
    expect((await answer('Who is the CTO?', after)).text).toBe('Ines Duarte');
    // Only a question for a role reads the apposition: "who met" asks for the subject.
    expect((await answer('Who met Kofi?', after)).text).toBe('Ines Duarte');
    const met = [source('k', 'Kofi met the CTO, Ines Duarte, at Brightline.')];
    expect((await answer('Who met the CTO?', met)).text).toBe('Kofi');
    // A name merely next to the question's verb is no apposition: the subject answers.
    const visit = [source('v', 'Ana from Globex visits Lisbon on 3 December.')];
    expect((await answer('Who visits Lisbon?', visit)).text).toBe('Ana');
  });

  it('answers "who" with a name, never with the capitalised word that opens a line nor a quoted title', async () => {
    // "Yep" opens the line: no memory names anyone so; the line is the answer then (no name to give).
    const yep = [source('y', 'John: Yep, we raised a lot of money for victims of domestic abuse.')];
    expect((await answer('Who did John work with to raise funds for victims of domestic abuse?', yep)).text).toBe(yep[0]?.content);
    // A leading word the memories name elsewhere is a name.
    const rob = [source('r', 'John: Rob invited me to a beginner yoga class.'), source('s', 'Maria: Say hi to Rob from me!', 0.5)];
    expect((await answer('Who invited John to the yoga class?', rob)).text).toBe('Rob');
    // The one who sings a song is the name after its quoted title, not the title.
    const song = [source('b', 'Caroline: "Brave" by Sara Bareilles always makes me feel courageous.')];
    expect((await answer('Who sings the song that makes Caroline feel courageous?', song)).text).toBe('Sara Bareilles');
    // A note's line that opens with a verb or a time: the name is the rest of the run, not "Met Sarah Chen".
    const met = [source('m', 'Met Sarah Chen at the Berlin conference; she is the CFO of Acme Corp.')];
    expect((await answer('Who is the CFO of Acme Corp?', met, 'default', { ...PLAIN, window: 3 })).text).toBe('Sarah Chen');
    expect((await answer('Who did I call?', [source('c', 'Called Tom Baker about the Globex contract.')])).text).toBe('Tom Baker');
    expect((await answer('Who did I meet yesterday?', [source('t', 'Yesterday Anna showed me the new office.')])).text).toBe('Anna');
    // A word that opens speech is no name, alone or before one; a name in -ly is one.
    expect((await answer('Who loved the trail?', [source('n', 'Honestly the trail was great and Tom loved it.')])).text).toBe('Tom');
    expect((await answer('Who might join Dan on the trail?', [source('m', 'Maybe Lena could join Dan on the trail.')])).text).toBe('Lena');
    expect((await answer('Who called about the contract?', [source('e', 'Emily called about the contract renewal.')])).text).toBe('Emily');
    // A sentence's first word before a pronoun is no name either, in the line's first sentence or a later one.
    expect((await answer('Who wrote the drama?', [source('m3', 'We should go together, right? Maybe I will write a drama myself.')])).text).not.toBe('Maybe');
  });

  it('answers a question with a subordinate "when" or "how" by its phrase; one that asks two things by the sentence too', async () => {
    expect(isCompound('Who helped Maria when she was younger?')).toBe(false);
    expect(isCompound('When did Gina make a video to teach how to style her pieces?')).toBe(false);
    expect(isCompound('What is Emma good at and what should she do more?')).toBe(true);
    expect(isCompound('Which museum did I visit, and which room did he recommend?')).toBe(true);
    const aunt = [source('a', 'Maria: My aunt Rosa gave us money when we were struggling.')];
    expect((await answer('Who gave Maria money when she was younger?', aunt)).text).toBe('Rosa');
    expect((await answer('Who gave Maria money, and what did they buy?', aunt)).text).toBe('Rosa — Maria: My aunt Rosa gave us money when we were struggling.');
  });

  it('adds close runners-up up to the tier, best first', async () => {
    const sources = [
      source('a', 'Jon opened a dance studio in Berlin.', 0.7),
      source('b', 'Jon loves dancing and wants to teach dance classes at the studio.', 0.68),
      source('c', 'The weather in Berlin was rainy.', 0.5),
    ];
    const fast = await answer('What is Jon doing with the dance studio?', sources, 'fast');
    const smart = await answer('What is Jon doing with the dance studio?', sources, 'smart');
    expect(fast.finish.cited).toHaveLength(1);
    expect(smart.finish.cited.length).toBeGreaterThan(1);
    expect(smart.finish.cited).not.toContain('c');
    expect(smart.text.startsWith(fast.text)).toBe(true);
  });

  it('embeds sentences of longer memories only above the fast tier', async () => {
    const long = [source('l', 'The kickoff went well. Budget approval is due on Friday. Lunch was pasta.')];
    embedder.calls = 0;
    await answer('When is the budget approval due?', long, 'fast');
    expect(embedder.calls).toBe(0);
    const { text } = await answer('When is the budget approval due?', long, 'default');
    expect(embedder.calls).toBe(1);
    // "due on Friday", written on Monday 8 May 2023: the Friday after.
    expect(text).toBe('Friday 12 May 2023');
  });

  it('counts the tokens it read, streams word by word, and answers nothing from nothing', async () => {
    const sources = [source('x', 'Alpha beta gamma.'), source('y', 'Delta, epsilon!')];
    const { finish, deltas } = await answer('alpha?', sources, 'fast');
    expect(finish.usage.promptTokens).toBe(countTokens('alpha?') + countTokens('Alpha beta gamma.') + countTokens('Delta, epsilon!'));
    expect(deltas).toBe(3);
    const empty = await answer('anything?', []);
    expect(empty.text).toBe('');
  });

  it('tells kinds of question apart', () => {
    expect(questionKind('When did she move?')).toBe('when');
    expect(questionKind('What year did they marry?')).toBe('when');
    expect(questionKind('Who gave Caroline the necklace?')).toBe('who');
    expect(questionKind('Where did Jon travel?')).toBe('where');
    expect(questionKind('How many kids does Melanie have?')).toBe('quantity');
    expect(questionKind('What does Jon like?')).toBe('other');
  });
});

describe('answer text helpers', () => {
  it('finds names, not sentence openers or calendar words', () => {
    expect(properNouns('Met Sarah Chen from Acme Corp in Berlin on Monday. The plan is fine.')).toEqual(['Sarah Chen', 'Acme Corp', 'Berlin']);
    expect(properNouns('Preparing the quarterly review with Acme')).toEqual(['Acme']);
    // A capital inside a word or a unit opens no name.
    expect(properNouns('Switched to Greenline Energy at 0.27 €/kWh.')).toEqual(['Greenline Energy']);
    // A time that opens a line is no name, in full or in chat's short form.
    expect(properNouns('Last Friday I met Tom. Next May we fly. Last Fri I finally took my kids.')).toEqual(['Tom']);
    // A title keeps its name; its period or an initial's ends no sentence.
    expect(properNouns('Our landlord is Mr. Haddad; Dr. Okafor is the dentist. I met J. Smith there.')).toEqual(['Mr. Haddad', 'Dr. Okafor', 'Smith']);
    expect(sentences("Ask Mr. Haddad. He knows. J. R. Smith wrote it! Shouldn't I. Yes.")).toEqual(['Ask Mr. Haddad.', 'He knows.', 'J. R. Smith wrote it!', "Shouldn't I.", 'Yes.']);
    expect(properNouns("We stayed at the Davises' cabin")).toEqual(['Davises']);
    // A sentence's first word before a pronoun opens it and names no one; a name before one still does.
    expect(properNouns('Sounds fun, right? Maybe I will come. Sure we can. Sarah Chen I met in Berlin.')).toEqual(['Sarah Chen', 'Berlin']);
    expect(sharedNames('Call with Sarah about Acme Corp', 'Met Sarah Chen from Acme Corp in Berlin')).toEqual(['Sarah', 'Acme Corp']);
  });

  it('stems as search does, so that the answerer matches the forms of a word', () => {
    expect(stem('realize')).toBe(stem('realizing'));
    expect(stem('race')).toBe(stem('races'));
    expect(stem('moved')).toBe(stem('move'));
    expect(contentWords("Caroline's races")).toEqual(contentWords('Caroline race'));
  });

  it('headWords: the kind of thing a what/which question asks for', () => {
    expect(headWords('What workshop did Caroline attend recently?')).toEqual([stem('workshop')]);
    expect(headWords('What kind of pot did Mel make?')).toEqual([stem('pot')]);
    expect(headWords('In which city does Jon live?')).toEqual([stem('city')]);
    expect(headWords('What did Melanie realize?')).toEqual([]);
    expect(headWords('Who is the CFO?')).toEqual([]);
  });

  it('resolves relative dates as LoCoMo writes them', () => {
    expect(resolveRelativeDate('yesterday', MAY_8)).toBe('7 May 2023');
    expect(resolveRelativeDate('last week', MAY_8)).toBe('the week before 8 May 2023');
    expect(resolveRelativeDate('last year', MAY_8)).toBe('2022');
    expect(resolveRelativeDate('two days ago', MAY_8)).toBe('6 May 2023');
    expect(resolveRelativeDate('ten years ago', MAY_8)).toBe('2013');
    expect(resolveRelativeDate('last Saturday', MAY_8)).toBe('Saturday 6 May 2023');
    expect(resolveRelativeDate('last month', MAY_8)).toBe('April 2023');
    expect(resolveRelativeDate('someday', MAY_8)).toBeUndefined();
  });

  it('matches a question\'s words to a line\'s by word key, where the stemmer parts two forms of a word', async () => {
    expect(stem('allergic')).not.toBe(stem('allergies'));
    expect(wordKey(stem('allergic'))).toBe(wordKey(stem('allergies')));
    expect(termsOf('Maya is allergic')).toEqual(termsOf('Maya allergies'));
    // Short stems are their own key: "car" and "card" stay apart.
    expect(wordKey(stem('car'))).not.toBe(wordKey(stem('card')));
    const notes = [
      source('s', 'Maya starts swimming lessons on Saturday with her friend.', 0.7),
      source('a', "Maya's allergies: peanuts and shellfish.", 0.7),
    ];
    const found = await answer('What is Maya allergic to?', notes);
    expect(found.finish.cited).toEqual(['a']);
  });

  it('tieAnswers: a "who" question over a line that names no one is answered by the tie it names', async () => {
    const turns = [source('a', 'Maria: My aunt believed in volunteering, so I am inspired by her.', 0.8)];
    expect((await answer('Who inspired Maria to volunteer?', turns)).text).toBe(turns[0]?.content);
    expect((await answer('Who inspired Maria to volunteer?', turns, 'default', { ...PLAIN, tieAnswers: true })).text).toBe("Maria's aunt");
    expect(tiePhrase('Lunch with my older sister at noon.', 'Who did I have lunch with?')).toBe('my older sister');
    // A note's opening errand ("Lunch with...") names no one: the tie answers.
    const note = [source('l', 'Lunch with my older sister on Friday at the Thai place.', 0.8)];
    expect((await answer('Who did I have lunch with?', note, 'default', { ...PLAIN, tieAnswers: true })).text).toBe('my older sister');
    expect(tiePhrase('Joanna: Her boss called twice.', 'Who called Joanna?')).toBe('her boss');
    // The tie the question names is not its answer, and a line with no tie gives none.
    expect(tiePhrase('Melanie: My daughter and her friend came over.', "Who visited with Melanie's daughter?")).toBe('her friend');
    expect(tiePhrase('Maria: It was a great day.', 'Who came?')).toBeUndefined();
  });

  it('names the calendar month or year a relative phrase means, and keeps weeks relative', () => {
    expect(resolveRelativeDate('next month', MAY_8)).toBe('June 2023');
    expect(resolveRelativeDate('this month', MAY_8)).toBe('May 2023');
    expect(resolveRelativeDate('this year', MAY_8)).toBe('2023');
    expect(resolveRelativeDate('next year', MAY_8)).toBe('2024');
    expect(resolveRelativeDate('next week', MAY_8)).toBe('the week after 8 May 2023');
    // The last day of a month has no counterpart in a shorter one: the month before 31 March is February.
    expect(resolveRelativeDate('last month', Date.parse('2023-03-31T12:00:00Z'))).toBe('February 2023');
    expect(resolveRelativeDate('next month', Date.parse('2023-01-31T12:00:00Z'))).toBe('February 2023');
  });

  it('resolves a month named alone by the tense of its sentence, and keeps a recurring one as written', () => {
    expect(resolveMonth('We moved to Lisbon in March, best decision ever.', MAY_8)).toBe('March 2023');
    expect(resolveMonth('We moved to Lisbon in September.', MAY_8)).toBe('September 2022');
    expect(resolveMonth('The lease ends in March.', MAY_8)).toBe('March 2024');
    expect(resolveMonth('The lease ends in June.', MAY_8)).toBe('June 2023');
    expect(resolveMonth('Parking permit renews every year in March; 45 euros.', MAY_8)).toBe('every year in March');
    expect(resolveMonth('Taxes are due by the end of June.', MAY_8)).toBe('end of June 2023');
    // A day of a month or a month with its year is an explicit date, and "may" is a verb.
    expect(resolveMonth('Dentist on March 3.', MAY_8)).toBeUndefined();
    expect(resolveMonth('We moved in March 2021.', MAY_8)).toBeUndefined();
    expect(resolveMonth('It may rain in the morning.', MAY_8)).toBeUndefined();
  });

  it('answers "when" from a month named alone rather than with the note\'s own date', async () => {
    const notes = [source('p', 'Parking permit renews every year in March; 45 euros.', 0.8)];
    expect((await answer('When does the parking permit renew?', notes, 'fast')).text).toBe('Every year in March');
    const moved = [source('m', 'We moved to Lisbon in March, best decision ever.', 0.8)];
    expect((await answer('When did we move to Lisbon?', moved, 'fast')).text).toBe('March 2023');
  });

  it('answers "where" with a place a note gives without naming it, close after the words asked about', async () => {
    const key = [source('k', 'Spare key is under the blue flowerpot by the back door.', 0.8), source('o', 'Called the plumber about the leak.', 0.5)];
    expect((await answer('Where did I put the spare key?', key, 'fast')).text).toBe('under the blue flowerpot by the back door');
    const passport = [source('p', 'Passport in the top desk drawer, next to the birth certificates.', 0.8)];
    expect((await answer('Where is my passport?', passport, 'fast')).text).toBe('in the top desk drawer');
    // A note's label names what the place is of.
    expect((await answer('Where is my passport?', [source('q', 'Passport: in the top desk drawer.', 0.8)], 'fast')).text).toBe('in the top desk drawer');
    // A time after the place is not part of it; a named place still answers as a name.
    const bone = [source('b', 'Melanie: Oliver hid his bone in my slipper once!', 0.8)];
    expect((await answer('Where did Oliver hide his bone?', bone, 'fast')).text).toBe('in my slipper');
    expect((await answer('Where did Ana move?', [source('a', 'Ana moved to Porto in May.', 0.8)], 'fast')).text).toBe('Porto');
    // A name that qualifies a thing after "the" answers with the thing.
    const lunch = [source('l', 'Lunch with my older sister on Friday at the Thai place on Elm Street.', 0.8)];
    expect((await answer('Where is lunch with my sister?', lunch, 'fast')).text).toBe('the Thai place');
    // A place of something else the sentence tells is no answer: the line is given whole.
    const journey = [source('j', 'Joanna: You are the best for supporting me in my writing journey.', 0.8)];
    expect((await answer('Where did Joanna travel to?', journey, 'fast')).text).not.toBe('in my writing journey');
  });

  it('answers "what" with the words a line says in the question\'s gap (gapRun)', async () => {
    const none = new Set<string>();
    expect(gapFiller("I'm working on opening a dance studio, fingers crossed!", 'What is Jon working on opening?', new Set(['jon']), 2)).toBe('a dance studio');
    expect(gapFiller('Raising awareness for mental health is super rewarding.', 'What did the charity race raise awareness for?', none, 2)).toBe('mental health');
    // A modifier after the gap ("last weekend", "in her store") does not move it; the line's own time or
    // next clause ends the filler.
    expect(gapFiller('Busy at the shelter getting ready for a fundraiser next week.', 'What event is Maria getting ready for at the shelter?', new Set(['maria']), 2)).toBe('a fundraiser');
    expect(gapFiller('I wanted to make my customers feel cozy and welcome when they come in.', 'What did Gina want her customers to feel in her store?', new Set(['gina']), 2)).toBe('cozy and welcome');
    expect(gapFiller('Tools in the green shed, padlock code 0815.', "What's the code for the padlock on the garden shed?", none, 1)).toBe('0815');
    // The question's words inside a modifier are not its phrase: the gap is after "realize".
    expect(gapFiller('I ran a charity race for mental health last Saturday.', 'What did Melanie realize after the charity race?', new Set(['melanie']), 1)).toBeUndefined();
    // Too few of the question's words in order, a reason or a manner, what something is, or a line that
    // goes on with a clause of its own: no filler.
    expect(gapFiller("I'm working on opening a dance studio.", 'What is Jon working on opening?', new Set(['jon']), 3)).toBeUndefined();
    expect(gapFiller('I started the studio to share my passion.', 'Why did Jon start the studio?', new Set(['jon']), 1)).toBeUndefined();
    expect(gapFiller('My grandma gave me this necklace as a gift.', "What was grandma's gift to Caroline?", new Set(['caroline']), 1)).toBeUndefined();
    expect(gapFiller('I joined a marching event for veterans and it was awesome.', 'What did John join for veterans?', new Set(['john']), 1)).toBe('a marching event');
    expect(gapFiller('Nate: I watched it twice and it was awesome.', 'What did Nate watch?', new Set(['nate']), 1)).toBeUndefined();
    // An irregular past meets the question's present; the question's own modifier ends the filler.
    expect(gapFiller('Anyway, I took my turtles to the beach in Tampa yesterday.', 'What did Nate take to the beach in Tampa?', new Set(['nate', 'tampa']), 1)).toBe('turtles');
    expect(gapFiller('I made a stained glass window for a local church.', 'What did Caroline make for a local church?', new Set(['caroline']), 1)).toBe('a stained glass window');
    // Through the answerer: the filler answers; without the rule, the line less its echo does.
    const studio = [source('s', "Jon: I'm working on opening a dance studio, fingers crossed!", 0.8)];
    expect((await answer('What is Jon working on opening?', studio, 'fast', { ...PLAIN, trimEcho: true, gapRun: 2 })).text).toBe('a dance studio');
    expect((await answer('What is Jon working on opening?', studio, 'fast', { ...PLAIN, trimEcho: true })).text).toBe('dance studio, fingers crossed');
    // With gapWindow, a line a little lower that fills the gap answers when the best line only echoes it.
    const echo = [source('e', 'Jon: The opening has been so much work.', 0.95), source('s', "Jon: I'm working on opening a dance studio.", 0.3)];
    expect((await answer('What is Jon working on opening?', echo, 'fast', { ...PLAIN, gapRun: 1 })).text).toBe('Jon: The opening has been so much work.');
    expect((await answer('What is Jon working on opening?', echo, 'fast', { ...PLAIN, window: 2, gapRun: 1, gapWindow: 2 })).text).toBe('a dance studio');
  });

  it('fills a gap past a time, after a stranded preposition, after a verb that follows a modifier, through "stands for", with a whole list, and with a named favourite', () => {
    const none = new Set<string>();
    // A time between the phrase and its filler times the thing; a question that ends on its preposition
    // asks for that preposition's object, not for what the phrase "is".
    expect(gapFiller('I had an interview yesterday for a museum job, wish me luck!', "What was Priya's interview for?", new Set(["priya's"]), 1)).toBe('a museum job');
    expect(gapFiller('Took a short trip last month to Lisbon to see my aunt.', 'What did Ana take a trip to Lisbon for?', new Set(['ana', 'lisbon']), 1)).toBe('see my aunt');
    // "of" strands too ("a reminder of"), and a verb with its object pronoun after a modifier is the
    // question's verb, not part of the modifier ("the photo on her desk remind her of").
    expect(gapFiller('The colours are lovely - it reminds me of art and self-expression.', "What is Mia's bowl a reminder of?", new Set(["mia's"]), 1)).toBe('art and self-expression');
    expect(gapFiller('Having that photo on my desk reminds me of home every day.', "What does the photo on Lea's desk remind her of?", new Set(["lea's"]), 1)).toBe('home every day');
    expect(gapFiller('I keep a photo on my desk of home.', "What does Lea keep on her desk?", new Set(['lea']), 1)).toBe('a photo');
    // A pronoun for a thing is the filler itself, and what follows it only times it: nothing to take.
    expect(gapFiller('The boiler pressure was low; the plumber fixed it on Friday for 80 euros.', 'What did the plumber fix?', none, 1)).toBeUndefined();
    expect(gapFiller('My colleague Rob invited me to a beginner\'s yoga class.', 'What did Rob invite John to?', new Set(['rob', 'john']), 1)).toBe("a beginner's yoga class");
    // "stands for", "is a symbol of", "represents" and "means" answer "symbolize"; a list of short items keeps
    // all its items though commas part them, and no comma trails the filler.
    expect(gapFiller('Got this ring from my dad, it stands for courage, hope and patience.', "What does Tom's ring symbolize?", new Set(["tom's"]), 1)).toBe('courage, hope and patience');
    expect(gapFiller('For me the oak tree is a symbol of home.', 'What does the oak tree represent?', none, 1)).toBe('home');
    expect(gapFiller('We baked bread, and it was fun.', 'What did they bake?', none, 1)).toBe('bread');
    // A list goes on only to the sentence's end: a clause after the comma is not an item.
    expect(gapFiller('We baked bread, cookies and it was fun to do together with the kids.', 'What did they bake?', none, 1)).toBe('bread');
    // A favourite named before "is my favourite / top pick"; not the one the question already names.
    expect(gapFiller('I like most teas, but genmaicha is my top pick.', "What is Lea's favourite tea?", new Set(['lea']), 1)).toBe('genmaicha');
    expect(gapFiller('Lemon cake is at the top of my list.', "What is Sam's favorite cake?", new Set(['sam']), 1)).toBe('Lemon cake');
    expect(gapFiller('Lemon cake is at the top of my list.', "What is Sam's favorite cake besides lemon cake?", new Set(['sam']), 1)).toBeUndefined();
    expect(gapFiller("Honestly it's my favourite.", "What is Sam's favourite cake?", new Set(['sam']), 1)).toBeUndefined();
  });

  it('fills the gap from the line that says the most of the question\'s phrase (gapLongest)', async () => {
    const lines = [
      source('h', "Noor: I'm working hard to get everything ready for the weekend.", 0.9),
      source('b', 'Noor: Still working on opening a bakery downtown.', 0.5),
    ];
    const rules = { ...PLAIN, window: 2, gapRun: 1, gapWindow: 2 };
    // The first line that fills the gap says only "working"; the second says "working on opening".
    expect((await answer('What is Noor working on opening?', lines, 'fast', rules)).text).toBe('hard to get everything ready for the weekend');
    expect((await answer('What is Noor working on opening?', lines, 'fast', { ...rules, gapLongest: true })).text).toBe('a bakery downtown');
    // Of equal runs, the better line fills it.
    const equal = [source('x', 'Noor: We baked bread.', 0.9), source('y', 'Noor: We baked scones.', 0.5)];
    expect((await answer('What did Noor bake?', equal, 'fast', { ...rules, gapLongest: true })).text).toBe('bread');
  });

  it('answers "what X" with X as a line qualifies it when no line fills the gap (headPhrases)', async () => {
    expect(headPhrase('I went to a pottery glazing workshop on Saturday.', 'What workshop did Ana attend?')).toBe('pottery glazing workshop');
    expect(headPhrase("We're after oak flooring, which lasts.", 'What kind of flooring is Sam looking for?')).toBe('oak flooring');
    // Two modifiers joined by "and"; the speaker's verb before them is not one.
    expect(headPhrase('I love jazz and soul records.', 'What type of records does Ben collect?')).toBe('jazz and soul records');
    // Praise or place says no kind; a verb after "and" joins clauses, not modifiers; a participle with an
    // article before it qualifies.
    expect(headPhrase('It was a good cause, and we raised a lot.', 'What cause did the run support?')).toBeUndefined();
    expect(headPhrase('Helping others and discovering fun activities.', 'What activities did they do?')).toBeUndefined();
    expect(headPhrase('We cheered for the winning team.', 'What team did they cheer for?')).toBe('winning team');
    // The head said with only the question's words, or not a "what X" question: nothing.
    expect(headPhrase('The art workshop was great.', 'What art workshop did Ana attend?')).toBeUndefined();
    expect(headPhrase('I went to a pottery workshop.', 'What did Ana attend?')).toBeUndefined();
    // Through the answerer: only when no line of the window fills the gap, and not over a quoted title.
    const lines = [source('w', 'Ana: I went to a pottery glazing workshop on Saturday.', 0.8)];
    const rules = { ...PLAIN, gapRun: 1, gapWindow: 3, trimEcho: true };
    expect((await answer('What workshop did Ana attend?', lines, 'fast', { ...rules, headPhrases: true })).text).toBe('pottery glazing workshop');
    expect((await answer('What workshop did Ana attend?', lines, 'fast', rules)).text).not.toBe('pottery glazing workshop');
    const filled = [source('f', 'Ana: I attended a pottery workshop.', 0.8)];
    expect((await answer('What workshop did Ana attend?', filled, 'fast', { ...rules, headPhrases: true })).text).toBe('a pottery workshop');
  });

  it('answers with what a line names before the question\'s own modifier (objectsBefore)', async () => {
    const club = new Set(['joanna']);
    const question = 'What did Joanna make for one of the ladies at her writing club?';
    // Another verb in the line, the thing's determiner and praise left out, its kind kept.
    expect(objectBefore('Joanna: I just finished this cute little bookmark for one of the ladies at my writing club!', question, club)).toEqual({ text: 'little bookmark', run: 3 });
    expect(objectBefore("Gina: Here's one of my trophies from a dance contest, nice reminder.", 'What did Gina receive from a dance contest?', new Set(['gina']))?.text).toBe('trophies');
    // The modifier unsaid, said in part, or after no preposition; a question with no modifier after its verb;
    // a past verb right before the modifier names nothing.
    expect(objectBefore('Joanna: I went to my writing club.', question, club)).toBeUndefined();
    expect(objectBefore('Joanna: I made a card for my mum.', question, club)).toBeUndefined();
    expect(objectBefore('Joanna: The ladies at my writing club loved the bookmark.', question, club)).toBeUndefined();
    expect(objectBefore('Joanna: I made a bookmark for the ladies.', 'What did Joanna make?', club)).toBeUndefined();
    expect(objectBefore('Joanna: I finished for one of the ladies at my writing club.', question, club)).toBeUndefined();
    // Through the answerer: it beats a line that says fewer of the question's words after its verb.
    const lines = [
      source('a', 'Joanna: Writing lets me make something good out of it.', 0.9),
      source('b', 'Joanna: I just finished this cute little bookmark for one of the ladies at my writing club!', 0.8),
    ];
    const rules = { ...PLAIN, gapRun: 1, gapWindow: 3, gapLongest: true };
    expect((await answer(question, lines, 'fast', rules)).text).toBe('something good');
    const placed = await answer(question, lines, 'fast', { ...rules, objectsBefore: true });
    expect(placed.text).toBe('little bookmark');
    expect(placed.finish.cited).toEqual(['b']);
  });

  it('answers a named thing with the line\'s name nearest the question\'s words (nearestNames)', async () => {
    const lines = [source('m', 'Ana: I like Queen for rock, but for classical I love Bach and Mozart.', 0.8)];
    const rules = { ...PLAIN, namedThings: true };
    expect((await answer('Which classical artist does Ana love?', lines, 'fast', rules)).text).toBe('Queen');
    expect((await answer('Which classical artist does Ana love?', lines, 'fast', { ...rules, nearestNames: true })).text).toBe('Bach and Mozart');
    expect((await answer('Which rock band does Ana like?', lines, 'fast', { ...rules, nearestNames: true })).text).toBe('Queen');
  });

  it('reads a short form of a name in the question as the one name of the memories it starts (shortNames)', async () => {
    const speakers = new Set(['Melanie', 'Caroline']);
    expect(withFullNames('What did Mel and her kids make?', speakers, new Set(['Mel']))).toBe('What did Melanie and her kids make?');
    expect(withFullNames("What is Mel's job?", speakers, new Set())).toBe("What is Melanie's job?");
    // A name of its own, two names it starts, a short form that notes name beside a longer name no one
    // speaks, two letters: unchanged.
    expect(withFullNames('What did Caroline make?', speakers, new Set())).toBe('What did Caroline make?');
    expect(withFullNames('What did Sam bake?', new Set(), new Set(['Samantha', 'Samuel']))).toBe('What did Sam bake?');
    expect(withFullNames('What did Sam bake?', new Set(), new Set(['Sam', 'Samantha']))).toBe('What did Sam bake?');
    expect(withFullNames('What did Sam bake?', new Set(), new Set(['Samantha']))).toBe('What did Samantha bake?');
    expect(withFullNames('What did Jo bake?', new Set(), new Set(['Joanna']))).toBe('What did Jo bake?');
    // The capitalised word that opens the question is no short name ("What" of "WhatsApp").
    expect(withFullNames('What did I post in the group?', new Set(), new Set(['WhatsApp']))).toBe('What did I post in the group?');
    // Through the answerer: the short form is found in the memory its speaker holds, as the full name is
    // (an abstention model that refuses answers from memories that do not hold the question's names).
    const lines = [source('m', 'Melanie: We made pots at the pottery workshop!', 0.8)];
    const weights = ABSTENTION_SIGNALS.map((signal) => (signal === 'nameMissingLead' ? 1 : 0));
    const rules = { ...PLAIN, gapRun: 1, gapWindow: 2, abstention: { bias: -0.5, weights } };
    expect((await answer('What did Melanie make at the pottery workshop?', lines, 'fast', rules)).text).toBe('pots');
    expect((await answer('What did Mel make at the pottery workshop?', lines, 'fast', { ...rules, shortNames: true })).text).toBe('pots');
    expect((await answer('What did Mel make at the pottery workshop?', lines, 'fast', rules)).text).toBe('');
  });

  it('answers with what follows a dash when the words before it only announce it (elaborations)', async () => {
    expect(elaborated('great news to share - I joined a gym', 'What exciting news did Maria share?')).toBe('joined a gym');
    expect(elaborated('good cause - to help out veterans and their families', 'What cause did the run support?')).toBe('to help out veterans and their families');
    // A head that names something the question does not is the answer; no dash, nothing to do.
    expect(elaborated('necklace is super special to me - a gift from my grandma', "What was grandma's gift to Caroline?")).toBe('necklace is super special to me - a gift from my grandma');
    expect(elaborated('joined a gym', 'What news did Maria share?')).toBe('joined a gym');
    const lines = [source('n', 'Maria: I got some great news to share - I joined a gym last week!', 0.8)];
    const rules = { ...PLAIN, gapRun: 1, gapWindow: 3 };
    expect((await answer('What exciting news did Maria share?', lines, 'fast', { ...rules, elaborations: true, timeless: true })).text).toBe('joined a gym');
  });

  it('leaves the times out of an untyped answer (timeless)', async () => {
    expect(withoutTimes('dinner together last night')).toBe('dinner together');
    expect(withoutTimes('Last week, we had a meaningful experience at a memorial')).toBe('had a meaningful experience at a memorial');
    expect(withoutTimes('won my fourth tournament on Friday')).toBe('won my fourth tournament');
    expect(withoutTimes('printed it last Friday, then sent it off')).toBe('printed it, then sent it off');
    // A possessive names a thing; a phrase that is only a time stays; a subject stays unless a time opened.
    expect(withoutTimes("Can't wait for tomorrow's opening")).toBe("Can't wait for tomorrow's opening");
    expect(withoutTimes('yesterday')).toBe('yesterday');
    expect(withoutTimes('I took my kids to the park last week')).toBe('I took my kids to the park');
    const lines = [source('d', 'Maria: My mom and I made dinner together on Friday.', 0.8)];
    const rules = { ...PLAIN, gapRun: 1, gapWindow: 3 };
    expect((await answer('What did Maria and her mom make?', lines, 'fast', { ...rules, timeless: true })).text).toBe('dinner together');
    expect((await answer('What did Maria and her mom make?', lines, 'fast', rules)).text).toBe('dinner together on Friday');
    // "When" is answered by its time.
    expect((await answer('When did Maria make dinner?', lines, 'fast', { ...rules, timeless: true })).text).not.toBe('dinner together');
  });

  it('answers a question that asks whether with "Yes" or "No" from its best line (yesNo)', async () => {
    const bowl = [source('b', 'Mia: Yeah, I made this bowl at my pottery class last week.', 0.8)];
    expect((await answer('Did Mia make the blue bowl?', bowl, 'fast', { ...PLAIN, yesNo: true })).text).toBe('Yes');
    const denied = [source('d', 'Mia: No, my sister made that bowl, I only painted it.', 0.8)];
    expect((await answer('Did Mia make the blue bowl?', denied, 'fast', { ...PLAIN, yesNo: true })).text).toBe('No');
    const unpaid = [source('u', "Still haven't paid the gas bill, due Friday.", 0.8)];
    expect((await answer('Did I pay the gas bill?', unpaid, 'fast', { ...PLAIN, yesNo: true })).text).toBe('No');
    const paid = [source('p', "Paid the gas bill today, so that's done.", 0.8)];
    expect((await answer('Did I pay the gas bill?', paid, 'fast', { ...PLAIN, yesNo: true })).text).toBe('Yes');
    // Without the rule, or for a question that offers its answers, or one that asks "what": no yes or no.
    expect((await answer('Did Mia make the blue bowl?', bowl, 'fast', PLAIN)).text).not.toMatch(/^(?:Yes|No)$/u);
    expect((await answer('Did Mia make the bowl or the vase?', bowl, 'fast', { ...PLAIN, yesNo: true })).text).not.toMatch(/^(?:Yes|No)$/u);
    expect((await answer('What did Mia make?', bowl, 'fast', { ...PLAIN, yesNo: true })).text).not.toMatch(/^(?:Yes|No)$/u);
    // The smart tier gives its sentence with the answer: the yes or no stands on it.
    expect((await answer('Did Mia make the blue bowl?', bowl, 'smart', { ...PLAIN, yesNo: true })).text).toContain('pottery class');
  });

  it('answers "why" with the reason a line gives (reasons)', async () => {
    expect(reasonOf("Nate: I picked this color because it's bright and bold!")).toBe('bright and bold');
    expect(reasonOf("Since I'm lactose intolerant I'm trying out dairy-free options.")).toBe('lactose intolerant');
    expect(reasonOf('We went early since it was sunny and we could swim.')).toBe('sunny');
    expect(reasonOf('I picked the blue one, it matched the sofa.')).toBeUndefined();
    const hair = [source('h', "Nate: I picked this color because it's bright and bold, like me!", 0.8)];
    expect((await answer('Why did Nate choose the hair color he did?', hair, 'fast', { ...PLAIN, reasons: true })).text).toBe('bright and bold');
    // Only "why" asks for a reason.
    expect((await answer('What color did Nate pick?', hair, 'fast', { ...PLAIN, reasons: true })).text).not.toBe('bright and bold');
  });

  it('answers "who" with the subject of the question\'s own verb, a tie with tieAnswers', async () => {
    const recipe = [source('r', "Grandma's recipe: my aunt taught me the plum cake when I was ten.", 0.8)];
    expect((await answer('Who taught me the plum cake?', recipe, 'fast')).text).toBe('Grandma');
    expect((await answer('Who taught me the plum cake?', recipe, 'fast', { ...PLAIN, tieAnswers: true })).text).toBe('my aunt');
    const yoga = [source('y', 'John: My colleague Rob kindly invited me to a beginner yoga class.', 0.8)];
    expect((await answer('Who invited John to yoga?', yoga, 'fast')).text).toBe('Rob');
    const rota = [source('o', 'On-call rota: Marco and Aisha share the first week, then Lena.', 0.8)];
    expect((await answer('Who shares the first on-call week?', rota, 'fast')).text).toBe('Marco and Aisha');
    // A clause after a dash may open with a comment word, which names no one.
    const family = [source('f', 'Maria: Family is important - Even though mine is small, I rely on them.', 0.8)];
    expect((await answer('Who in her family does Maria rely on?', family, 'fast')).text).not.toBe('Even');
    // A passive's doer answers; the maker of a title does not.
    const book = [source('b', "Started reading 'Piranesi' by Susanna Clarke, recommended by Julia.", 0.8)];
    expect((await answer("Who recommended 'Piranesi'?", book, 'fast')).text).toBe('Julia');
    // A word the question writes in lower case is no name where a note capitalises it.
    const yogaClass = [source('c', 'Yoga class with Mira on Wednesdays at 7pm at the Lotus studio.', 0.8)];
    expect((await answer('Who teaches the yoga class?', yogaClass, 'fast')).text).toBe('Mira');
    // "Now" asks for what holds today: the newest line naming the doer, wherever it ranks.
    const FEB = Date.parse('2026-02-10T09:00:00Z');
    const plants = [
      source('new', 'Anna Schmidt moved to Hamburg; Felix from number 12 will water the plants now.', 0.6, FEB),
      source('old', 'Our neighbour Anna Schmidt waters the plants when we travel; she has a spare key.', 0.95, FEB - 21 * 86_400_000),
    ];
    expect((await answer('Who waters the plants now?', plants, 'fast', { ...PLAIN, window: 3 })).text).toBe('Felix');
    expect((await answer('Who waters the plants when we travel?', plants.slice(1), 'fast', { ...PLAIN, window: 3 })).text).toBe('Anna Schmidt');
  });

  it('answers "who is my <role>" from the line that gives the role as asked', async () => {
    const roles = [
      source('d', 'David Kim is the account manager for Northwind and Contoso.', 0.95),
      source('l', 'Lena Vogel is my manager; our 1:1 is every Tuesday at 10am.', 0.9),
    ];
    expect((await answer('Who is my manager?', roles, 'fast', { ...PLAIN, window: 3 })).text).toBe('Lena Vogel');
    expect((await answer('Who is our landlord?', [source('o', 'Our landlord is Mr. Haddad; rent is due on the 1st.', 0.9)], 'fast')).text).toBe('Mr. Haddad');
    // "These days" is when, not part of the role; a capitalised word before the role's noun is no subject.
    const FEB = Date.parse('2026-02-10T09:00:00Z');
    const sold = [
      source('old', 'Letter from the landlord (Mr Adebayo): rent goes up from April.', 0.95, FEB - 200 * 86_400_000),
      source('new', 'Mr Adebayo has sold the flat. New landlord is Petra Lindqvist - rent goes to her account.', 0.9, FEB),
    ];
    expect((await answer('Who is my landlord these days?', sold, 'fast', { ...PLAIN, window: 3 })).text).toBe('Petra Lindqvist');
    // A role's holder in brackets; a note's opening "Letter" names no one.
    expect((await answer('Who is my landlord?', sold.slice(0, 1), 'fast')).text).toBe('Mr Adebayo');
    // "Role: Name" is a role, not a speaker's turn; a role ending a clause about someone names no one after it.
    const minutes = [source('m', 'First meeting of the club. Chair: Bernard Kowalczyk. Treasurer: Yuki Tanaka.', 0.9)];
    expect((await answer('Who is the treasurer?', minutes, 'fast', { ...PLAIN, window: 3 })).text).toBe('Yuki Tanaka');
    // A note's later lines carry its first label ("Treasurer: Chair: Bernard"): the name after a role is no label.
    expect(holderOf('Treasurer: Chair: Bernard Kowalczyk.', 'Who is the treasurer?')).toBeUndefined();
    expect(holderOf('Treasurer: Yuki Tanaka.', 'Who is the treasurer?')).toBe('Yuki Tanaka');
    const agm = [source('a', 'AGM tonight: I am the new chair! Oscar stays treasurer, Lotte is secretary.', 0.9)];
    expect((await answer('Who is the treasurer?', agm, 'fast')).text).toBe('Oscar');
  });

  it('answers "now" from the newest line that matches the question as well as the best one, not a newer line about something else', async () => {
    const FEB = Date.parse('2026-02-10T09:00:00Z');
    const notes = [
      source('walk', 'Dog walker Kwame: 14 euros per walk, picks Biscuit up at 12.', 0.9, FEB - 300 * 86_400_000),
      source('food', 'Dog food went up - the big bag is now 59.90 euros.', 0.95, FEB),
    ];
    expect((await answer('How much does a dog walk cost now?', notes, 'fast', { ...PLAIN, window: 3 })).text).toBe('14 euros');
  });

  it('answers "where does X work" with the name they joined or work for, and a named thing after an article whole', async () => {
    const moved = [source('t', 'Tom Baker left Globex and joined Stripe as a product lead.', 0.9), source('m', 'Met Tom Baker from Globex at the Berlin fintech meetup.', 0.7)];
    expect((await answer('Where does Tom Baker work now?', moved, 'fast')).text).toBe('Stripe');
    // Not a workplace question: "joined" puts no one anywhere.
    expect((await answer('Where did Tom Baker go?', [source('g', 'Tom Baker joined Stripe in May.', 0.9)], 'fast')).text).not.toBe('Stripe');
    const backup = [source('h', 'Backed up the home server to a Hetzner storage box every night at 3am.', 0.9)];
    expect((await answer('Where is the home server backed up?', backup, 'fast')).text).toBe('a Hetzner storage box');
  });

  it('resolves a lone weekday by the tense of its sentence (8 May 2023 is a Monday)', () => {
    expect(resolveWeekday('on Friday', 'I won my fourth tourney on Friday!', MAY_8)).toBe('Friday 5 May 2023');
    expect(resolveWeekday('Friday', 'We went hiking Friday', MAY_8)).toBe('Friday 5 May 2023');
    expect(resolveWeekday('on Friday', 'Dentist on Friday at 9', MAY_8)).toBe('Friday 12 May 2023');
    expect(resolveWeekday('on Friday', "I'll call the landlord on Friday", MAY_8)).toBe('Friday 12 May 2023');
    expect(resolveWeekday('this Wednesday', 'The plumber came by, he returns this Wednesday', MAY_8)).toBe('Wednesday 10 May 2023');
    expect(resolveWeekday('on Monday', 'Dentist on Monday', MAY_8)).toBe('Monday 15 May 2023');
    expect(resolveWeekday('8 May 2023', 'on 8 May 2023', MAY_8)).toBeUndefined();
  });
});

describe('confidence and grounding', () => {
  it('is retrieval times (0.5 + 0.5 support), never above retrieval', () => {
    expect(confidenceOf([0.8], 0.9, 1)).toBe(0.8);
    expect(confidenceOf([0.8, 0.6], 0.9, 0)).toBe(0.35);
    expect(confidenceOf([], 0.9, 0.5)).toBe(0.68);
    expect(grounding('Sarah on Thursday', [{ content: 'Meeting Sarah on Thursday' }])).toBe(1);
    expect(grounding('Bob on Friday', [{ content: 'Meeting Sarah on Thursday' }])).toBe(0);
  });

  it('takes a memory date from metadata.date when it has one', () => {
    const memory = { createdAt: 5, metadata: { date: '2023-05-08' } } as unknown as MemoryRecord;
    expect(memoryDate(memory)).toBe(Date.parse('2023-05-08'));
    expect(memoryDate({ createdAt: 5, metadata: {} } as unknown as MemoryRecord)).toBe(5);
  });
});

describe('remind', () => {
  const NOW = Date.parse('2026-03-04T15:00:00Z');
  it('bounds createdAt by timeframe', async () => {
    expect(timeframeStart('today', NOW)).toBe(Date.parse('2026-03-04T00:00:00Z'));
    expect(timeframeStart('week', NOW)).toBe(NOW - 7 * 86_400_000);
    expect(timeframeStart('month', NOW)).toBe(NOW - 30 * 86_400_000);
    expect(timeframeStart('all', NOW)).toBeUndefined();
    const seen: SearchInput[] = [];
    const memories = { search: async (_account: string, input: SearchInput) => (seen.push(input), { hits: [], total: 0 }) } as unknown as MemoryService;
    await new RemindService(memories, () => NOW).remind('acc', { context: 'the quarterly review', limit: 5, threshold: 0.6, timeframe: 'week' });
    // Candidates are fetched unthresholded and re-scored with shared names before the threshold applies.
    expect(seen[0]).toMatchObject({ query: 'the quarterly review', hybrid: true, threshold: 0, filter: { after: NOW - 7 * 86_400_000 } });
  });

  it('builds reasons from names, dates and topic words', () => {
    const memory = (content: string, createdAt = NOW - 86_400_000) => ({ title: content.slice(0, 20), content, createdAt });
    expect(reminderReason('Preparing the quarterly review with Sarah Chen', memory('Sarah Chen asked for the churn numbers.'), 0.7, NOW)).toBe(
      'Mentions Sarah Chen, also named in your context.',
    );
    expect(reminderReason('Paying the bills this week', memory('Electricity bill is due on Friday.'), 0.7, NOW)).toBe('Due this week; same topic: "bill".');
    expect(reminderReason('Preparing the quarterly review', memory('Quarterly review slides need the churn chart.'), 0.7, NOW)).toBe(
      'Same topic: "quarterly" and "review".',
    );
    expect(reminderReason('Holiday planning ideas', memory('Beach trip with the kids.'), 0.71, NOW)).toBe(
      'Close in meaning to your context (relevance 0.71), though it shares no names or words with it.',
    );
    expect(dateReason('Rent was due on 1 March 2026.', NOW - 10 * 86_400_000, NOW)).toBe('Was due 1 March 2026');
  });
});

describe('remind relevance', () => {
  it('shared names are evidence: one reaches the default threshold, more go higher, none leaves the score', async () => {
    const { remindRelevance } = await import('../../src/core/answers/remind-service.js');
    expect(remindRelevance(0.03, 0)).toBeCloseTo(0.03);
    expect(remindRelevance(0, 1)).toBeCloseTo(0.6);
    expect(remindRelevance(0.03, 1)).toBeGreaterThan(0.6);
    expect(remindRelevance(0.03, 2)).toBeGreaterThan(remindRelevance(0.03, 1));
    expect(remindRelevance(0.9, 3)).toBeLessThanOrEqual(1);
  });
});
