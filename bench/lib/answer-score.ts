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
  return f1Of(predicted, expected);
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

/** Token F1 of two token lists (LoCoMo's, on already normalised and stemmed tokens). */
function f1Of(predicted: readonly string[], expected: readonly string[]): number {
  if (predicted.length === 0 || expected.length === 0) return 0;
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

/** The best token F1 of any contiguous span of `text` against the gold tokens (spans up to twice its length). */
export function bestSpanF1(text: string, gold: readonly string[]): number {
  const tokens = answerTokens(text);
  const longest = Math.min(tokens.length, gold.length * 2 + 2);
  const wanted = new Set(gold);
  let best = 0;
  for (let start = 0; start < tokens.length; start += 1) {
    // A best span starts and ends on a gold token: others only lower its precision.
    if (!wanted.has(tokens[start] as string)) continue;
    for (let end = start + 1; end <= Math.min(tokens.length, start + longest); end += 1) {
      if (!wanted.has(tokens[end - 1] as string)) continue;
      best = Math.max(best, f1Of(tokens.slice(start, end), gold));
    }
  }
  return best;
}

/** The oracle over several texts: LoCoMo's per-part average for multi-hop, the best span otherwise. */
export function oracleF1(texts: readonly string[], gold: string, category: number): number {
  const parts = category === 1 ? gold.split(',').map((part) => part.trim()).filter(Boolean) : [gold];
  const scores = parts.map((part) => {
    const tokens = answerTokens(part);
    return texts.reduce((best, text) => Math.max(best, bestSpanF1(text, tokens)), 0);
  });
  return scores.length === 0 ? 0 : scores.reduce((sum, value) => sum + value, 0) / scores.length;
}
