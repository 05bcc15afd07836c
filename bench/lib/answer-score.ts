/**
 * Token F1 the way LoCoMo's task_eval/evaluation.py scores answers: normalise (lowercase, drop punctuation and
 * the words a/an/the/and), stem each token, F1 over the token multisets; category 1 (multi-hop) splits the
 * prediction and the gold answer on commas and averages, over gold parts, the best F1 of any predicted part;
 * category 3 keeps the gold text before any ';'. LoCoMo stems with NLTK's Porter stemmer; this uses a light
 * suffix stemmer (-s, -es, -ed, -ing, -ly), so figures may differ from Porter's by a little.
 */

function stemToken(token: string): string {
  if (token.length <= 4) return token;
  return token.replace(/(?:ing|edly|ed|ly|es|s)$/, '') || token;
}

/** LoCoMo's normalize_answer, then stemmed tokens. */
export function answerTokens(text: string): string[] {
  const normalized = text
    .toLowerCase()
    .replace(/[!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~’‘“”—–]/g, '')
    .replace(/\b(?:a|an|the|and)\b/g, ' ');
  return normalized.split(/\s+/).filter(Boolean).map(stemToken);
}

export function tokenF1(prediction: string, gold: string): number {
  const predicted = answerTokens(prediction);
  const expected = answerTokens(gold);
  if (predicted.length === 0 || expected.length === 0) return predicted.length === expected.length ? 1 : 0;
  const counts = new Map<string, number>();
  for (const token of expected) counts.set(token, (counts.get(token) ?? 0) + 1);
  let common = 0;
  for (const token of predicted) {
    const left = counts.get(token) ?? 0;
    if (left > 0) {
      common += 1;
      counts.set(token, left - 1);
    }
  }
  if (common === 0) return 0;
  const precision = common / predicted.length;
  const recall = common / expected.length;
  return (2 * precision * recall) / (precision + recall);
}

export function locomoF1(prediction: string, gold: string, category: number): number {
  if (category === 1) {
    const predictions = prediction.split(',').map((part) => part.trim());
    const golds = gold.split(',').map((part) => part.trim());
    return golds.reduce((sum, part) => sum + Math.max(...predictions.map((p) => tokenF1(p, part))), 0) / golds.length;
  }
  if (category === 3) return tokenF1(prediction, gold.split(';')[0] ?? gold);
  return tokenF1(prediction, gold);
}
