/**
 * A synthetic corpus with the shape of real text: words drawn with a Zipf-Mandelbrot distribution
 * (probability ∝ 1 / (rank + 2.7)) over 30,000 words whose head is English stop words, then common
 * English nouns, then generated words. As in real text, stop words make up about a third of the
 * tokens and the most frequent content words appear in a good tenth of the documents, so two-word
 * queries drawn from the same distribution match anything from none to tens of thousands of documents.
 * Deterministic (seeded).
 */
const STOP =
  `the of and to a in is that it was for on are as with his they at be this from have or by one had not but what all were
when we there can an your which their said if do will each about how up out them then she many some so these would other into has
more her two like him see time no could way`.split(/\s+/);

const COMMON =
  `year people day man thing woman life child world school state family student group country problem hand part place case
week company system program question work government number night point home water room mother area money story fact month lot right
study book eye job word business issue side kind head house service friend father power hour game line end member law car city
community name president team minute idea kid body information back parent face others level office door health person art war
history party result change morning reason research girl guy moment air teacher force education foot boy age policy music market
sense nation plan college interest death experience effect class control care field development role effort rate heart drug show
leader light voice wife police mind price report decision son view relationship town road arm difference value building action
model season society tax director position player record paper space ground form event official matter center couple site project
activity star table need court oil situation cost industry figure street image phone data picture practice piece land product
doctor wall patient worker news test movie north love support technology step baby computer type attention film tree source
organization hair window evidence population garden river mountain bicycle coffee bread harbour island forest valley bridge castle
museum library kitchen summer winter autumn spring ocean desert village station festival concert theatre painting sculpture journey
recipe chocolate lemon pepper salmon tomato`.split(/\s+/);

const SYLLABLES = [
  'ka',
  'lo',
  'mi',
  'ne',
  'ru',
  'sa',
  'ti',
  'vo',
  'ze',
  'po',
  'lan',
  'mor',
  'ter',
  'vin',
  'sel',
  'dra',
  'quo',
  'bex',
  'ful',
  'gri',
];

export const STOP_WORDS = STOP.length;

export function vocabulary(size: number, random: () => number): string[] {
  const words = [...new Set([...STOP, ...COMMON])];
  const seen = new Set(words);
  while (words.length < size) {
    const n = 2 + Math.floor(random() * 3);
    let w = '';
    for (let i = 0; i < n; i++) w += SYLLABLES[Math.floor(random() * SYLLABLES.length)];
    if (!seen.has(w)) {
      seen.add(w);
      words.push(w);
    }
  }
  return words;
}

/** Draws word ranks (indexes) from `from` on with probability ∝ 1 / (rank + 2.7). */
export function zipf(size: number, random: () => number, from = 0): () => number {
  const cumulative: number[] = [];
  let sum = 0;
  for (let i = from; i < size; i++) {
    sum += 1 / (i + 2.7);
    cumulative.push(sum);
  }
  return () => {
    const x = random() * sum;
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return lo + from;
  };
}
