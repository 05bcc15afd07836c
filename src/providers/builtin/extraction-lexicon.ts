/**
 * Word lists of the built-in extractor: generic English cues (legal suffixes, job titles, event words,
 * verbs), not names from any test set. Lower case.
 */

export const COMPANY_SUFFIXES = new Set([
  'corp', 'corp.', 'corporation', 'inc', 'inc.', 'incorporated', 'ltd', 'ltd.', 'limited', 'llc', 'gmbh', 'co', 'co.',
  'plc', 'ag', 'sa', 'bv', 'nv', 'llp', 'pty',
]);

/** Words that make a capitalised name an organisation. */
export const COMPANY_WORDS = new Set([
  'labs', 'lab', 'technologies', 'technology', 'tech', 'systems', 'software', 'bank', 'capital', 'ventures',
  'partners', 'group', 'holdings', 'industries', 'pharma', 'pharmaceuticals', 'analytics', 'robotics', 'networks',
  'solutions', 'dynamics', 'motors', 'airlines', 'airways', 'foods', 'media', 'studios', 'studio', 'consulting',
  'logistics', 'energy', 'insurance', 'financial', 'security', 'semiconductor', 'semiconductors', 'biotech',
  'therapeutics', 'games', 'entertainment', 'electronics', 'communications', 'telecom', 'cloud', 'data', 'ai',
  'digital', 'interactive', 'brands', 'retail', 'agency', 'associates', 'foundation', 'institute', 'university',
  'college', 'bakery', 'cafe', 'coffee', 'traders', 'trading', 'health', 'healthcare', 'clinic', 'hospital',
  'hotel', 'hotels', 'airlines', 'press', 'publishing', 'records', 'payments', 'robotics', 'mobility', 'works',
  'ministry', 'council', 'department', 'agency', 'bureau', 'commission', 'enterprises', 'enterprise', 'corporation',
]);

export const EVENT_WORDS = new Set([
  'conference', 'summit', 'expo', 'meetup', 'hackathon', 'offsite', 'kickoff', 'kick-off', 'festival', 'retreat',
  'workshop', 'forum', 'congress', 'fair', 'webinar', 'gala', 'symposium', 'convention', 'olympics', 'cup',
  'championship', 'marathon', 'week', 'day', 'awards', 'launch', 'all-hands', 'town', 'hall', 'showcase', 'con',
  'devcon', 'keynote', 'party', 'wedding', 'demo', 'show', 'exhibition', 'tournament',
]);

export const LOCATION_WORDS = new Set([
  'street', 'st', 'avenue', 'ave', 'road', 'rd', 'boulevard', 'river', 'lake', 'park', 'airport', 'station', 'bay',
  'valley', 'mountain', 'mountains', 'island', 'islands', 'county', 'city', 'beach', 'square', 'district', 'province',
  'state', 'coast', 'harbor', 'harbour', 'heights', 'hills',
]);

export const PRODUCT_WORDS = new Set(['app', 'platform', 'api', 'sdk', 'dashboard', 'plugin', 'engine', 'os', 'cli', 'suite', 'pro', 'max', 'mini', 'studio']);

/** Executive titles that become a role predicate (CEO -> CEO_OF). */
export const ROLE_TITLES: Record<string, string> = {
  ceo: 'CEO_OF',
  'chief executive': 'CEO_OF',
  'chief executive officer': 'CEO_OF',
  cto: 'CTO_OF',
  'chief technology officer': 'CTO_OF',
  cfo: 'CFO_OF',
  'chief financial officer': 'CFO_OF',
  coo: 'COO_OF',
  'chief operating officer': 'COO_OF',
  cpo: 'CPO_OF',
  'chief product officer': 'CPO_OF',
  cmo: 'CMO_OF',
  'chief marketing officer': 'CMO_OF',
  ciso: 'CISO_OF',
  founder: 'FOUNDER_OF',
  'co-founder': 'FOUNDER_OF',
  cofounder: 'FOUNDER_OF',
  president: 'PRESIDENT_OF',
  chairman: 'CHAIR_OF',
  chairwoman: 'CHAIR_OF',
  chair: 'CHAIR_OF',
  'managing director': 'MANAGING_DIRECTOR_OF',
  'general counsel': 'GENERAL_COUNSEL_OF',
  owner: 'OWNER_OF',
};

/** Job titles that say where someone works (WORKS_AT, with the title as a property). */
export const JOB_TITLES = [
  'vp', 'vice president', 'head', 'director', 'manager', 'engineer', 'developer', 'designer', 'product manager',
  'pm', 'lead', 'analyst', 'scientist', 'researcher', 'consultant', 'lawyer', 'attorney', 'recruiter', 'architect',
  'intern', 'partner', 'investor', 'advisor', 'adviser', 'accountant', 'editor', 'reporter', 'journalist',
  'professor', 'teacher', 'nurse', 'doctor', 'sales rep', 'account executive', 'account manager', 'cto', 'ceo',
  'specialist', 'coordinator', 'officer', 'associate', 'administrator', 'owner', 'chef', 'agent', 'representative',
  'contact', 'counterpart', 'colleague',
];

/** Capitalised words that are never names on their own. */
export const NOT_NAMES = new Set([
  'i', 'we', 'you', 'he', 'she', 'they', 'it', 'me', 'us', 'our', 'my', 'him', 'her', 'his', 'hers', 'its', 'them',
  'their', 'theirs', 'your', 'yours', 'mine', 'ours', 'myself', 'himself', 'herself', 'itself', 'themselves', 'the',
  'a', 'an', 'this', 'that', 'these', 'those', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday', 'january', 'february',
  'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december', 'jan', 'feb',
  'mar', 'apr', 'jun', 'jul', 'aug', 'sep', 'sept', 'oct', 'nov', 'dec', 'today', 'tomorrow', 'yesterday',
  'q1', 'q2', 'q3', 'q4', 'h1', 'h2', 'fy', 'ok', 'okay', 'yes', 'no', 'hi', 'hello', 'hey', 'dear', 'thanks',
  'thank', 'regards', 'best', 'cheers', 'subject', 're', 'fwd', 'fw', 'cc', 'bcc', 'to', 'from', 'note', 'notes',
  'todo', 'action', 'items', 'agenda', 'update', 'meeting', 'call', 'email', 'mr', 'mrs', 'ms', 'dr', 'prof',
  'also', 'then', 'next', 'after', 'before', 'when', 'while', 'but', 'and', 'or', 'so', 'if', 'as', 'at', 'in',
  'on', 'for', 'with', 'of', 'by', 'about', 'per', 'eod', 'eow', 'asap', 'fyi', 'tbd', 'pto', 'ooo', 'kpi', 'okr',
  'okrs', 'kpis', 'ps', 'p.s', 'dear', 'team', 'everyone', 'all', 'great', 'good', 'quick', 'big', 'new', 'old',
  'mom', 'dad', 'one', 'two', 'three', 'first', 'second', 'last', 'every', 'each', 'some', 'any', 'both',
  'english', 'french', 'german', 'spanish', 'chinese', 'japanese', 'ceo', 'cto', 'cfo', 'coo', 'cpo', 'cmo', 'vp',
  'ai', 'ml', 'api', 'ui', 'ux', 'qa', 'hr', 'it', 'pr', 'sre', 'devops', 'saas', 'b2b', 'b2c', 'roi', 'mrr', 'arr',
  'nps', 'sla', 'sql', 'pdf', 'usd', 'eur', 'gbp', 'am', 'pm', 'utc', 'est', 'pst', 'cet', 'tl;dr', 'wip', 'n/a',
  'series', 'seed', 'round', 'board', 'legal', 'finance', 'sales', 'marketing', 'engineering', 'product', 'design',
  'support', 'ops', 'operations', 'platform', 'growth', 'revenue', 'budget', 'roadmap', 'sprint', 'retro', 'standup',
  'stand-up', 'sync', 'journal', 'dinner', 'lunch', 'breakfast', 'coffee', 'weekend', 'morning', 'evening', 'night',
  'afternoon', 'week', 'month', 'year', 'quarter', 'christmas', 'easter', 'thanksgiving', 'please', 'let', 'lets',
  'let’s', "let's", 'will', 'would', 'should', 'could', 'need', 'must', 'just', 'still', 'already', 'maybe',
  'however', 'overall', 'finally', 'meanwhile', 'later', 'earlier', 'here', 'there', 'what', 'who', 'why', 'how',
  'where', 'which', 'decision', 'decisions', 'next steps', 'follow-up', 'attendees', 'status', 'risks', 'blockers',
  'highlights', 'lowlights', 'summary', 'context', 'background', 'goal', 'goals', 'outcome', 'outcomes',
  'release', 'security', 'monthly', 'weekly', 'daily', 'annual', 'yearly', 'quarterly', 'infra', 'infrastructure',
  'partnership', 'interview', 'vendor', 'customer', 'customers', 'investor', 'investors', 'reminder', 'intro',
  'introduction', 'debrief', 'review', 'planning', 'kickoff', 'metrics', 'numbers', 'news', 'feedback', 'idea',
]);

/** Family words before a name: "Uncle Piotr" is Piotr. */
export const KINSHIP_WORDS = new Set(['uncle', 'aunt', 'auntie', 'cousin', 'grandma', 'grandpa', 'grandmother', 'grandfather', 'sister', 'brother', 'mom', 'dad', 'nephew', 'niece']);

export const HONORIFICS = new Set(['mr', 'mr.', 'mrs', 'mrs.', 'ms', 'ms.', 'dr', 'dr.', 'prof', 'prof.', 'miss', 'sir', 'dame']);

/** Verbs after which a name is someone you interact with. */
export const PERSON_CONTEXT_BEFORE = [
  'met', 'meet', 'meeting with', 'met with', 'call with', 'called', 'emailed', 'email from', 'email to', 'told',
  'asked', 'thanked', 'pinged', 'messaged', 'texted', 'spoke with', 'spoke to', 'talked to', 'talked with',
  'lunch with', 'dinner with', 'coffee with', 'sync with', '1:1 with', 'chat with', 'interviewed', 'hired',
  'introduced', 'cc', 'thanks', 'dear', 'hi', 'hey', 'hello', 'ping', 'ask', 'tell', 'remind', 'invite', 'invited',
];
export const PERSON_CONTEXT_AFTER = [
  'said', 'says', 'thinks', 'thought', 'wants', 'wanted', 'asked', 'told', 'mentioned', 'agreed', 'suggested',
  'proposed', 'promised', "'ll", 'joined', 'leads', 'led', 'manages', 'owns',
  'presented', 'explained', 'shared', 'sent', 'replied', 'wrote', 'called', 'reports', 'works', 'moved', 'lives',
  'flew', 'left', 'started', 'raised', 'pushed', 'confirmed', 'noted', 'argued', 'needs', 'prefers', 'loved',
  'hates', 'recommended', 'is the', 'is our', 'is a', 'is an', 'and i', 'feels', 'felt', 'seemed', 'signed off', 'approved',
  'estimates', 'estimated', 'runs', 'ran', 'booked', 'invited', 'closed', 'starts', 'is moving', 'is still', 'remains',
  'stays', 'plays', 'walked', 'lent', 'brought', 'met', 'meets', 'emailed', 'texted', 'messaged', 'visited',
];
/**
 * Verbs whose doer is someone, never a park, a street or a river: a name ending in a place word ("Lena
 * Park", "Tom Rivers") that does one of these is a person whose surname is that word.
 */
export const PERSON_ONLY_AFTER = [
  'told', 'thinks', 'thought', 'wants', 'wanted', 'asked', 'replied', 'texted', 'emailed', 'messaged', 'moved',
  'lives', 'lived', 'flew', 'walked', 'joined', 'left', 'quit', 'married', 'studied', 'graduated', 'feels',
  'felt', 'loves', 'loved', 'hates', 'prefers', 'met', 'visited', 'works', 'worked', 'is moving', 'was born',
  'said', 'says', 'wrote', 'shared', 'sent', 'called', 'agreed', 'suggested', 'mentioned', 'explained', 'decided',
  'promised', 'approved', 'signed off', 'reviewed',
];
/**
 * Words before a name that only a person follows: someone is met, emailed or asked, and a budget is approved
 * by someone. A name ending in a place word ("Mina Park") after one of these is a person, as after
 * PERSON_ONLY_AFTER. Places are met *at* or *in*, and a place may be *called* something: neither is here.
 */
export const PERSON_ONLY_BEFORE = [
  'met', 'met with', 'meeting with', 'call with', 'emailed', 'texted', 'messaged', 'pinged', 'told',
  'asked', 'thanked', 'spoke with', 'spoke to', 'talked to', 'talked with', 'interviewed', 'hired', 'dear',
  'approved by', 'signed off by', 'reviewed by', 'written by', 'requested by', 'suggested by', 'proposed by',
];
export const COMPANY_CONTEXT_BEFORE = [
  'joined', 'join', 'works at', 'work at', 'working at', 'worked at', 'works for', 'work for', 'working for',
  'ceo of', 'cto of', 'cfo of', 'founder of', 'founded', 'acquired', 'acquire', 'acquisition of', 'partnership with',
  'partner with', 'contract with', 'deal with', 'customer', 'client', 'vendor', 'competitor', 'investor in',
  'invested in', 'shares of', 'stock', 'offer from', 'interview at', 'interviewing at', 'onsite at', 'job at',
  'employed by', 'team at', 'folks at', 'people at', 'engineers at', 'office of', 'subsidiary of', 'division of',
  'part of', 'renewal with', 'invoice from', 'pitch to', 'demo for', 'demo to', 'signed with', 'switch to',
  'leaving', 'left', 'quit', 'integrate with', 'integration with', 'integrating with', 'job at', 'new job at',
];
export const LOCATION_CONTEXT_BEFORE = [
  'in', 'from', 'near', 'around', 'based in', 'located in', 'headquartered in', 'moved to', 'move to',
  'flew to', 'fly to', 'flying to', 'trip to', 'travel to', 'traveling to', 'travelling to', 'visit', 'visited',
  'visiting', 'lives in', 'living in', 'office in', 'offices in', 'back from', 'landed in', 'arrived in', 'drove to',
  'relocate to', 'relocating to', 'born in', 'grew up in', 'vacation in', 'holiday in', 'stay in', 'stayed in',
];
export const EVENT_CONTEXT_BEFORE = ['attend', 'attended', 'attending', 'spoke at', 'speak at', 'speaking at', 'presented at', 'present at', 'presenting at', 'at the', 'organizing', 'organising', 'sponsoring', 'sponsored', 'hosting', 'hosted', 'registered for', 'tickets for', 'booth at'];
export const PRODUCT_CONTEXT_BEFORE = ['launched', 'launch', 'launching', 'released', 'release', 'releasing', 'shipped', 'ship', 'shipping', 'using', 'use', 'uses', 'migrate to', 'migrated to', 'migrating to', 'adopted', 'rolled out', 'built', 'building', 'beta of', 'version of', 'demo of', 'bought', 'upgrade to', 'upgraded to', 'switched to', 'install', 'installed'];

/** Travel/relocation verbs that make "to X" a place. */
export const MOVE_VERBS = ['moved to', 'relocated to', 'relocating to', 'is moving to', 'moves to', 'will move to'];

export const METRIC_NAMES = [
  'revenue', 'sales', 'arr', 'mrr', 'profit', 'gross margin', 'margin', 'headcount', 'users', 'active users', 'daily active users',
  'monthly active users', 'dau', 'mau', 'customers', 'signups', 'sign-ups', 'churn', 'nps', 'downloads', 'traffic',
  'bookings', 'costs', 'cost', 'burn', 'burn rate', 'runway', 'valuation', 'conversion', 'conversion rate',
  'retention', 'subscribers', 'orders', 'pipeline', 'ebitda', 'income', 'net income', 'expenses', 'budget',
  'latency', 'uptime', 'market share', 'price', 'stock', 'share price', 'growth',
];

/**
 * Words that say whether a person is a woman or a man: honorifics and family or partner words, before a name
 * ("Mrs. Sato", "Uncle Piotr") or as the head of an unnamed mention ("my sister"). Never given names.
 */
export const FEMININE_WORDS = new Set([
  'mrs', 'ms', 'miss', 'dame', 'madam', 'lady', 'woman', 'girl', 'aunt', 'auntie', 'sister', 'mom', 'mum', 'mother',
  'grandma', 'grandmother', 'niece', 'daughter', 'wife', 'girlfriend', 'stepmother', 'stepsister', 'stepdaughter',
]);
export const MASCULINE_WORDS = new Set([
  'mr', 'sir', 'man', 'boy', 'guy', 'uncle', 'brother', 'dad', 'father', 'grandpa', 'grandfather', 'nephew', 'son',
  'husband', 'boyfriend', 'stepfather', 'stepbrother', 'stepson',
]);

/**
 * Nouns for a person (or a pet) left unnamed: "my sister", "a colleague", "this amazing woman". Each is
 * someone a later "she" or "he" may stand for, so the extractor does not hand the pronoun to a named person.
 */
export const PERSON_NOUNS = new Set([
  ...FEMININE_WORDS, ...MASCULINE_WORDS, 'friend', 'boss', 'manager', 'colleague', 'coworker', 'co-worker',
  'partner', 'spouse', 'kid', 'child', 'baby', 'toddler', 'teen', 'teenager', 'cousin', 'parent', 'grandparent',
  'neighbor', 'neighbour', 'roommate', 'flatmate', 'classmate', 'teammate', 'mentor', 'mentee', 'student', 'teacher',
  'doctor', 'nurse', 'therapist', 'coach', 'client', 'customer', 'person', 'stranger', 'lawyer', 'landlord',
  'recruiter', 'intern', 'guest', 'host', 'ex', 'dog', 'cat', 'puppy', 'pup', 'kitten', 'pet', 'horse',
]);

/** Family words that name someone without a determiner ("Dad called; he..."). */
export const BARE_PERSON_NOUNS = new Set(['mom', 'mum', 'mother', 'dad', 'father', 'grandma', 'grandpa', 'grandmother', 'grandfather']);

/** Words that may open a clause before its subject: "Then Sarah left", "Yesterday, Tom called". */
export const CLAUSE_OPENERS = new Set([
  'and', 'but', 'so', 'then', 'now', 'later', 'also', 'yesterday', 'today', 'tonight', 'afterwards', 'meanwhile',
  'finally', 'anyway', 'when', 'because', 'since', 'after', 'before', 'although', 'though', 'while', 'if', 'that',
  'once', 'where', 'plus', 'still', 'apparently', 'luckily', 'sadly', 'honestly',
]);

/** Interjections that make the name after them the person spoken to ("Thanks, Priya!"), not one spoken of. */
export const INTERJECTIONS = [
  'hi', 'hey', 'hello', 'thanks', 'thank you', 'dear', 'wow', 'oh', 'yes', 'yeah', 'yep', 'congrats',
  'congratulations', 'bye', 'sorry', 'ok', 'okay', 'aww', 'aw', 'haha', 'good morning', 'good night', 'morning', 'welcome',
  'whoa', 'woah',
];

/** Nouns for the company someone works at, after "her" or "his" ("her company, Acme Corp"). */
export const EMPLOYER_NOUNS = ['company', 'employer', 'firm', 'startup', 'start-up', 'agency'];
