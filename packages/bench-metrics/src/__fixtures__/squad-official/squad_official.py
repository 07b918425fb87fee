#!/usr/bin/env python3
"""Differential fuzz cases for @fastrag/bench-metrics' SQuAD metrics.

The functions between the two "VERBATIM" markers are the official SQuAD v2.0 evaluation
(evaluate-v2.0.py, https://rajpurkar.github.io/SQuAD-explorer/), copied unchanged;
`official_scores` is the per-question part of its `get_raw_scores` (gold answers that normalize
to "" are dropped, and `['']` stands for an unanswerable question): per-question scores in
[0, 1], as ours are (the script's averages x 100 are not used).

`answer_contains` is NOT part of the official script: it is our AnswerContains as its TSDoc
defines it, written on top of the official normalize_answer, so the fuzz checks it too.

Usage:
  python3 squad_official.py [--count N] [--seed S] [--out FILE]

The checked-in fixture `cases.json` beside this script (read by src/squad-fuzz-parity.test.ts,
so CI checks parity without Python) was written by
  python3 squad_official.py --count 850 --seed 20240601 --out cases.json
  npx biome format --write cases.json     # from the repository root; values are unchanged
with Python 3.11 (Unicode 14.0). It starts with the PINNED cases below. The generator avoids
code points that Python's Unicode database does not assign: their case mappings and
word-character property depend on the Unicode version of Python and of Node's ICU, so no fixed
expected value is right for both. For a large fuzz run, write to a scratch file (e.g.
--count 50000 --seed 1 --out /tmp/cases.json) and score it the way the test does.
"""

import argparse
import collections
import json
import random
import re
import string
import sys
import unicodedata

# ---- VERBATIM from evaluate-v2.0.py -------------------------------------------------------------


def normalize_answer(s):
  """Lower text and remove punctuation, articles and extra whitespace."""
  def remove_articles(text):
    regex = re.compile(r'\b(a|an|the)\b', re.UNICODE)
    return re.sub(regex, ' ', text)
  def white_space_fix(text):
    return ' '.join(text.split())
  def remove_punc(text):
    exclude = set(string.punctuation)
    return ''.join(ch for ch in text if ch not in exclude)
  def lower(text):
    return text.lower()
  return white_space_fix(remove_articles(remove_punc(lower(s))))

def get_tokens(s):
  if not s: return []
  return normalize_answer(s).split()

def compute_exact(a_gold, a_pred):
  return int(normalize_answer(a_gold) == normalize_answer(a_pred))

def compute_f1(a_gold, a_pred):
  gold_toks = get_tokens(a_gold)
  pred_toks = get_tokens(a_pred)
  common = collections.Counter(gold_toks) & collections.Counter(pred_toks)
  num_same = sum(common.values())
  if len(gold_toks) == 0 or len(pred_toks) == 0:
    # If either is no-answer, then F1 is 1 if they agree, 0 otherwise
    return int(gold_toks == pred_toks)
  if num_same == 0:
    return 0
  precision = 1.0 * num_same / len(pred_toks)
  recall = 1.0 * num_same / len(gold_toks)
  f1 = (2 * precision * recall) / (precision + recall)
  return f1

# ---- end VERBATIM -------------------------------------------------------------------------------


def official_scores(answers, a_pred):
  """get_raw_scores for one question whose answers' texts are `answers`."""
  gold_answers = [a for a in answers if normalize_answer(a)]
  if not gold_answers:
    # For unanswerable questions, only correct answer is empty string
    gold_answers = ['']
  exact = max(compute_exact(a, a_pred) for a in gold_answers)
  f1 = max(compute_f1(a, a_pred) for a in gold_answers)
  return exact, f1, gold_answers


def answer_contains(gold_answers, a_pred):
  """Our AnswerContains (not official): a normalized gold inside the normalized answer; an
  unanswerable gold ('' after normalization) matches only an answer that normalizes to ''."""
  pred = normalize_answer(a_pred)
  for g in gold_answers:
    n = normalize_answer(g)
    if (pred == '') if n == '' else (n in pred):
      return 1
  return 0


# ---- adversarial pieces -------------------------------------------------------------------------

WORDS = [
  'cat', 'Cat', 'CAT', 'sat', 'mat', 'Paris', 'france', 'x', 'y', 'z', 'tower', 'eiffel',
  'ana', 'than', 'athe', 'theatre', 'anthem', 'area', 'abc', 'the_', '_the', 'a1', '1a', 'a_b',
  'théâtre', 'café', 'Beyoncé', 'Beyonce', 'naïve', 'ß', 'straße', 'STRASSE', 'ğ', 'ǅ', 'Ǆ',
  '日本', '東京', 'Москва', 'Ελλάδα', 'עברית', 'العربية', 'हिन्दी', 'ไทย',
]
ARTICLES = [
  'a', 'an', 'the', 'A', 'An', 'AN', 'aN', 'The', 'THE', 'tHe', 'an.', 'the-', '(a)', "a's",
  'the,', '"the"', '.a.', 'a-an-the', 'the.the', 'ａ', 'ＴＨＥ', 'thé', 'the\u0301', 'a\u0308',
  '\u0301the', 'a\u200bthe', 'the\ufeff', '\ufeffan', 'ⓐ',
]
ASCII_PUNCT = list(string.punctuation) + ['...', "'s", 'U.S.', 'e.g.', '--', '()', '[a]', '$5']
UNICODE_PUNCT = [
  '“', '”', '‘', '’', '«', '»', '—', '–', '…', '¿', '¡', '。', '、', '·', '•', '‐', '′', '§',
  '¶', '†', '‹', '›', '「', '」', '！', '？', '，', '＂', '＇', '¨', '´', '˜', '\u2060',
]
WHITESPACE = [
  ' ', '  ', '\t', '\n', '\r', '\v', '\f', '\u00a0', '\u2003', '\u3000', '\x1c', '\x1d',
  '\x1e', '\x1f', '\x85', '\u200b', '\ufeff', '\u2028', '\u2029', '\u180e', '\u1680', '\u202f',
  '\u205f', '\u2000', '\u200a', '\u200c', '\u200d', '\x00', '\x7f',
]
CASE = [
  'İ', 'İstanbul', 'ISTANBUL', 'ẞ', 'Σ', 'ΑΣ', 'ΟΔΟΣ', 'ΟΔΟΣ.', 'ΑΣ\u0301', 'Σ\u0301',
  "ΑΣ'", 'ΑΣ.Α', 'Α.Σ', 'ΑΣ-', 'ΑΣ_', 'ΑΣ1', 'ΑΣΑ', '.Σ', 'ﬁ', 'ﬁsh', 'FISH', 'Ω', 'K', 'Å',
  'ŉ', 'ΐ', 'ς', 'σ', 'Ⅻ', 'Ⓐ', 'ǈ', 'Ꭰ', 'ꭰ', 'ᲀ', 'Ｔｈｅ', '𐐀', '𞤀', 'ϴ', 'ẞẞ', 'İİ',
]
MARKS = ['e\u0301', '\u0301', '\u0300', 'i\u0307', 'n\u0303', '\u20dd', 'a\u0308\u0304', '\u0489']
EMOJI = [
  '😀', '👍🏽', '👨\u200d👩\u200d👧', '🇫🇷', '❤️', '🔟', '𝟘', '𝐓𝐡𝐞', '\ud83d', '\ude00', '\udfff',
]
DIGITS = ['1', '42', '3.14', '1,000', '٣', '²', '½', 'Ⅷ', '①', '𝟙', '0x1F', '-7', '10%', '१२']

CATEGORIES = [
  (WORDS, 8), (ARTICLES, 6), (ASCII_PUNCT, 3), (UNICODE_PUNCT, 2), (WHITESPACE, 3),
  (CASE, 3), (MARKS, 2), (EMOJI, 2), (DIGITS, 2),
]
POOLS = [p for p, _ in CATEGORIES]
WEIGHTS = [w for _, w in CATEGORIES]


def assigned(s):
  """Every code point is assigned in this Python's Unicode database (lone surrogates count)."""
  return all(unicodedata.category(c) != 'Cn' for c in s)


def any_char(rng):
  """A random code point of any plane (a lone surrogate included), assigned or not."""
  return chr(rng.randrange(0x110000) if rng.random() < 0.3 else rng.randrange(0x10000))


def piece(rng):
  if rng.random() < 0.04:
    return ''.join(any_char(rng) for _ in range(rng.randint(1, 3)))
  return rng.choice(rng.choices(POOLS, WEIGHTS)[0])


def separator(rng):
  r = rng.random()
  if r < 0.55:
    return ' '
  if r < 0.75:
    return ''
  return rng.choice(WHITESPACE)


def text(rng, max_pieces=7):
  r = rng.random()
  if r < 0.05:
    return ''
  if r < 0.09:
    return ''.join(rng.choice(WHITESPACE) for _ in range(rng.randint(1, 3)))
  if r < 0.12:
    return rng.choice(['the', 'a.', '!!!', 'An', '(the)', ' a \u3000the ', '“”', '\u200b'])
  n = rng.randint(1, max_pieces)
  out = []
  for i in range(n):
    if i:
      out.append(separator(rng))
    out.append(piece(rng))
  if rng.random() < 0.15:
    out.insert(0, rng.choice(WHITESPACE))
  if rng.random() < 0.15:
    out.append(rng.choice(WHITESPACE))
  return ''.join(out)


def mutate(rng, s):
  """An answer close to a gold: reorder, re-case, duplicate or drop tokens, add noise."""
  toks = s.split(' ')
  ops = rng.randint(1, 3)
  for _ in range(ops):
    op = rng.randrange(7)
    if op == 0 and toks:
      rng.shuffle(toks)
    elif op == 1:
      toks = [t.upper() if rng.random() < 0.5 else t.lower() for t in toks]
    elif op == 2 and toks:
      toks.insert(rng.randrange(len(toks) + 1), rng.choice(toks))
    elif op == 3 and len(toks) > 1:
      del toks[rng.randrange(len(toks))]
    elif op == 4:
      toks.insert(rng.randrange(len(toks) + 1), piece(rng))
    elif op == 5:
      toks.insert(rng.randrange(len(toks) + 1), rng.choice(ARTICLES))
    else:
      toks = [t + rng.choice(ASCII_PUNCT + UNICODE_PUNCT) if rng.random() < 0.3 else t for t in toks]
  sep = separator(rng) or ' '
  return sep.join(toks)


# Cases every fixture starts with: one per behaviour where a JavaScript port is easy to get wrong.
PINNED = [
  (['The Eiffel Tower'], 'eiffel tower!'),
  (['ßthe a'], 'ßthe'),                        # \b is Unicode-aware: "ßthe" keeps its "the"
  (['éan the'], 'éan'),
  (['2the'], '2the'),
  (['the\u0301'], '\u0301'),                   # a combining mark is not a word character
  (['x\u0085y\u001fz'], 'x y z'),              # Python's whitespace: U+0085, U+001C-U+001F
  (['x\u3000y\u00a0z\u2003w'], 'x y z w'),
  (['x\ufeffy'], 'x y'),                       # U+FEFF, U+200B are not whitespace to Python
  (['x\u200by'], 'x y'),
  (['x\u180ey'], 'x y'),                       # U+180E stopped being whitespace in Unicode 6.3
  (['ΟΔΟΣ'], 'οδος'),                          # final sigma: Python lowercases to ς
  (['ΟΔΟΣ'], 'οδος.'),
  (["ΑΣ'Α"], "ας'α"),
  (['İstanbul'], 'istanbul'),                  # İ lowercases to i + U+0307
  (['ẞ'], 'ss'),
  (['ﬁsh'], 'fish'),
  (['Beyoncé'], 'Beyonce'),
  (['“quoted”'], 'quoted'),                    # Unicode punctuation stays
  (['', '   ', 'the', 'A.'], ''),               # every gold normalizes to '': unanswerable
  (['', 'Paris'], ''),
  (['\u3000'], 'the'),
  (['x x y'], 'x y y'),                         # Counter overlap
  (['a cat the cat'], 'cat cat cat'),
  (['\ud83d'], '\ud83d\ude00'),                 # lone surrogate vs a whole pair
  (['\ude00'], '\ud83d\ude00 x'),
  (['\ud83d'], '\ud83d x'),
  (['\ud83d', 'x'], '\ud83d\ude00 \ud83d'),
]


def case(rng):
  n_gold = rng.choices([1, 2, 3, 4, 5], [5, 3, 2, 1, 1])[0]
  gold = [text(rng) for _ in range(n_gold)]
  r = rng.random()
  if r < 0.45:
    answer = mutate(rng, rng.choice(gold))
  elif r < 0.55:
    answer = rng.choice(gold)
  else:
    answer = text(rng)
  return gold, answer


def generate(count, seed):
  rng = random.Random(seed)
  cases = []
  pinned = list(PINNED)
  while len(cases) < count:
    gold, answer = pinned.pop(0) if pinned else case(rng)
    # What both sides will read: JSON text (a lone high surrogate followed by a lone low one is
    # one code point after a round trip, in Python and in JavaScript alike).
    gold, answer = json.loads(json.dumps([gold, answer]))
    if not all(assigned(s) for s in gold + [answer]):
      continue
    exact, f1, gold_answers = official_scores(gold, answer)
    cases.append({
      'expected': gold,
      'answer': answer,
      'exact': exact,
      'f1': f1,
      'contains': answer_contains(gold_answers, answer),
    })
  return cases


def main():
  ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
  ap.add_argument('--count', type=int, default=1500)
  ap.add_argument('--seed', type=int, default=20240601)
  ap.add_argument('--out', default='-')
  args = ap.parse_args()
  doc = {
    'generator': 'squad_official.py --count %d --seed %d' % (args.count, args.seed),
    'python': sys.version.split()[0],
    'unicode': unicodedata.unidata_version,
    'cases': generate(args.count, args.seed),
  }
  data = json.dumps(doc, ensure_ascii=True, indent=None, separators=(',', ':'))
  # One case per line keeps diffs of a regenerated fixture readable.
  data = data.replace('},{"expected"', '},\n{"expected"')
  if args.out == '-':
    sys.stdout.write(data + '\n')
  else:
    with open(args.out, 'w', encoding='ascii') as f:
      f.write(data + '\n')


if __name__ == '__main__':
  main()
