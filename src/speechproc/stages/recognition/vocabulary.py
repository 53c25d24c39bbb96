"""Custom vocabulary: the recogniser's hint before recognition, the spoken forms and the correction after it.

Before recognition (`with_hint`): the terms, highest `weight` first (then in the order given), then the
scripts, go into faster-whisper's hot words as far as they fit its prompt (max_length // 2 - 1 tokens,
223 for Whisper, counted with the model's own tokenizer); the terms that do not fit are named in a warning
on the media item (20010) and still count after recognition. When terms were left out and the first
pass's words sound like some of them, the recording is recognised again told only those (`respotted`);
a term that second pass barely heard gives way to the first pass's words (`kept_from_second_pass`).

After recognition (`run`, the stage right after `asr`), on the words of every channel:
1. `soundsLike`: a run of words that reads as one of a single-word term's spoken forms (case and
   punctuation aside) becomes the term (v3 ignores `soundsLike` on multi-word terms);
2. the correction (`speechproc.vocabularyCorrection`, on by default): a run of words that sounds like any
   term (`soundalike`), where no word is a common word heard with high confidence, becomes the term.
A replaced run becomes one word per word of the term, timed from the first word replaced to the last, with
the lowest confidence of them; punctuation before the first and after the last is kept.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from speechproc import errors as E
from speechproc.conversation import Conversation, RecognizedWord
from speechproc.stages.options import RecognitionOptions, VocabularyOptions
from speechproc.stages.recognition.soundalike import CONFIDENT, MAX_GAP_MS, TermIndex, letters, matches, spotted

SPOTTED_HINT = 10  # terms in the hint of the second pass, most alike first
HEARD_AGAIN = 0.01  # the least probability of a term the second pass writes (below: the hint's invention)
UNSURE = 0.2  # a run of common words only changes when each was heard with a probability under this
SAME_START = 4  # letters a common word shares with the start of a term it is never replaced by
_common_words: dict[int, frozenset[str]] = {}
_indexes: dict[tuple[str, ...], TermIndex] = {}


def hint_parts(options: VocabularyOptions) -> list[str]:
    """What the hint holds, most wanted first: terms by weight (highest first, then as given), then scripts."""
    terms = sorted(options.terms, key=lambda t: -t.weight)  # stable: the order given among equal weights
    return [t.term for t in terms] + list(options.scripts)


def fit_hint(parts: list[str], tokens: Callable[[str], int], budget: int) -> tuple[str | None, list[str]]:
    """(the hint, the parts left out): the longest prefix of `parts` whose hot-word text (faster-whisper encodes
    " " + text) takes at most `budget` tokens. The count grows with the prefix, so it is found by bisection."""
    low, high = 0, len(parts)
    while low < high:
        middle = (low + high + 1) // 2
        if tokens(" " + " ".join(parts[:middle])) <= budget:
            low = middle
        else:
            high = middle - 1
    return (" ".join(parts[:low]) or None), parts[low:]


def prompt_budget(model: Any) -> int:
    """The hot-word tokens faster-whisper keeps in a prompt (it cuts them at max_length // 2 - 1)."""
    return int(model.max_length) // 2 - 1


def with_hint(conv: Conversation, recognition: RecognitionOptions, options: VocabularyOptions,
              recogniser: Callable[[], Any]) -> RecognitionOptions:
    """The recognition options with the vocabulary's hint (`fit_hint`, measured with the tokenizer of the model
    `recogniser` gives, asked for only with a vocabulary); what did not fit is said in a warning on `conv`."""
    parts = hint_parts(options)
    if not parts:
        return recognition
    model = recogniser()
    tokenizer = model.hf_tokenizer
    hint, left_out = fit_hint(parts, lambda text: len(tokenizer.encode(text, add_special_tokens=False).ids),
                              prompt_budget(model))
    if left_out:
        conv.warn(*hint_warning(left_out, options, prompt_budget(model)))
    return replace(recognition, hotwords=hint)


def respotted(conv: Conversation, recognition: RecognitionOptions, options: VocabularyOptions,
              recogniser: Callable[[], Any]) -> RecognitionOptions | None:
    """The options of a second pass of recognition, for a vocabulary larger than the hint holds: the hint
    made of only the SPOTTED_HINT terms some run of the first pass's words sounds most like
    (`soundalike.spotted`), as far as the prompt holds; None when every term fitted the first hint or nothing
    sounds like a term left out of it (then the first pass stands). A short hint of likely terms is what the
    recogniser uses best: a hint filled with unrelated names makes it hear names where there are none."""
    parts = hint_parts(options)
    model = recogniser()
    tokenizer = model.hf_tokenizer

    def tokens(text: str) -> int:
        return len(tokenizer.encode(text, add_special_tokens=False).ids)

    first, left_out = fit_hint(parts, tokens, prompt_budget(model))
    if not left_out or not conv.recognized:
        return None
    words = conv.recognized
    heard = spotted([w.text for w in words], _joined(words), index(options))[:SPOTTED_HINT]
    if not set(heard) & set(left_out):
        return None
    hint, _ = fit_hint(heard, tokens, prompt_budget(model))
    return replace(recognition, hotwords=hint) if hint != first else None


def kept_from_second_pass(first: list[RecognizedWord], second: list[RecognizedWord], hint: str | None
                          ) -> list[RecognizedWord]:
    """The second pass's words, except where it wrote a word of its hint with a probability under HEARD_AGAIN:
    there the first pass's words of that moment stand (a recogniser told of a name writes it where it hears
    something like it; measured: such inventions come with a probability near 0, names said with more)."""
    hinted = {letters(word) for word in (hint or "").split()}
    out: list[RecognizedWord] = []
    used: set[int] = set()
    for word in second:
        if letters(word.text) not in hinted or word.probability >= HEARD_AGAIN:
            out.append(word)
            continue
        for i, earlier in enumerate(first):  # the first pass's words whose middle falls in this word
            if i not in used and earlier.speaker == word.speaker and \
                    word.s <= (earlier.s + earlier.e) // 2 < max(word.e, word.s + 1):
                out.append(earlier)
                used.add(i)
    return out


def hint_warning(left_out: list[str], options: VocabularyOptions, budget: int) -> tuple[int, str]:
    scripts = sum(1 for part in left_out if part in options.scripts)
    terms = left_out[:len(left_out) - scripts]
    said = []
    if terms:
        said.append(f"{len(terms)} of {len(options.terms)} vocabulary terms ({', '.join(terms)})")
    if scripts:
        said.append(f"{scripts} of {len(options.scripts)} vocabulary scripts")
    return (E.VOCABULARY_TOO_MANY_TERMS,
            f"{' and '.join(said)} did not fit in the recogniser's hint ({budget} tokens; higher weights go first); "
            "the terms are still matched after recognition")


def common_words(tokenizer: Any) -> frozenset[str]:
    """Common English words: those the Whisper tokenizer spells as one token after a space (about 30,000)."""
    found = _common_words.get(id(tokenizer))
    if found is None:
        found = frozenset(token[1:].casefold() for token in tokenizer.get_vocab()
                          if token.startswith("\u0120") and token[1:].isalpha() and len(token) > 2)
        _common_words[id(tokenizer)] = found
    return found


def index(options: VocabularyOptions) -> TermIndex:
    """The terms indexed for the correction, once per vocabulary."""
    terms = tuple(t.term for t in options.terms)
    if terms not in _indexes:
        _indexes.clear()  # one vocabulary at a time is the common case; keep memory bounded
        _indexes[terms] = TermIndex(terms)
    return _indexes[terms]


def _spoken_forms(options: VocabularyOptions) -> dict[tuple[str, ...], str]:
    forms: dict[tuple[str, ...], str] = {}
    for term in options.terms:
        if len(term.term.split()) != 1:
            continue  # as in v3, soundsLike is ignored on a multi-word term
        for form in term.sounds_like:
            spoken = tuple(letters(word) for word in form.split())
            if all(spoken):
                forms.setdefault(spoken, term.term)
    return forms


def _joined(words: list[RecognizedWord]) -> Callable[[int, int], bool]:
    def joined(start: int, end: int) -> bool:
        last = words[end - 1]
        return end - start == 1 or (last.speaker == words[start].speaker and last.s - words[end - 2].e <= MAX_GAP_MS)
    return joined


def _replaced(run: list[RecognizedWord], term: str) -> list[RecognizedWord]:
    """The words of `term` in place of `run`: timed over the run, the run's lowest confidence, its outer
    punctuation kept."""
    first, last = run[0].text, run[-1].text
    lead = first[:len(first) - len(first.lstrip(".,?!;:\"'(-"))]
    trail = last[len(last.rstrip(".,?!;:\"')-")):]
    parts = term.split()
    parts[0], parts[-1] = lead + parts[0], parts[-1] + trail
    confidence = min(w.probability for w in run)
    if len(parts) == len(run):
        return [replace(w, text=text, probability=confidence) for w, text in zip(run, parts, strict=True)]
    s, e = run[0].s, run[-1].e
    step = (e - s) / len(parts)
    return [RecognizedWord(text, round(s + i * step), round(s + (i + 1) * step), confidence, run[0].speaker)
            for i, text in enumerate(parts)]


def sounds_like(words: list[RecognizedWord], options: VocabularyOptions) -> tuple[list[RecognizedWord], int]:
    """The words with every run that reads as a term's spoken form replaced by the term; and how many runs."""
    forms = _spoken_forms(options)
    if not forms:
        return words, 0
    longest = max(len(form) for form in forms)
    joined = _joined(words)
    out: list[RecognizedWord] = []
    count = i = 0
    while i < len(words):
        for n in range(min(longest, len(words) - i), 0, -1):
            heard = tuple(letters(w.text) for w in words[i:i + n])
            if heard in forms and joined(i, i + n):
                out += _replaced(words[i:i + n], forms[heard])
                count += 1
                i += n
                break
        else:
            out.append(words[i])
            i += 1
    return out, count


def correct(words: list[RecognizedWord], terms: TermIndex, common: frozenset[str],
            confident: float = CONFIDENT) -> tuple[list[RecognizedWord], int]:
    """The words with every run that sounds like a term (`soundalike.matches`) replaced by it; a common word
    heard with at least `confident` probability is never part of a run. And how many runs changed."""
    if not len(terms):
        return words, 0
    texts = [w.text for w in words]
    replaceable = [not (letters(w.text) in common and w.probability >= confident) for w in words]
    out: list[RecognizedWord] = []
    count = at = 0
    for match in matches(texts, replaceable, _joined(words), terms):
        run = words[match.start:match.end]
        if len(run) == 1 and _spelled_alike(letters(run[0].text), letters(match.term), common):
            continue  # a common word that already spells the term's start was most likely said as heard
        if all(letters(w.text) in common for w in run) and max(w.probability for w in run) >= UNSURE:
            continue  # common words the recogniser was not unsure of: "please" is not made "Blees"
        out += words[at:match.start]
        if letters(" ".join(w.text for w in run)) == letters(match.term) and len(run) == len(match.term.split()):
            out += run  # heard as spelled
        else:
            out += _replaced(run, match.term)
            count += 1
        at = match.end
    return out + words[at:], count


def _spelled_alike(word: str, term: str, common: frozenset[str]) -> bool:
    """Whether a common word and a term begin with the same SAME_START letters (`refund` and `Refundo`,
    `billing` and `Billings`): then the term is not what a mishearing of it looks like."""
    return word in common and word[:SAME_START] == term[:SAME_START] and len(word) >= SAME_START


def run(conv: Conversation, options: VocabularyOptions, tokenizer: Any | None = None) -> None:
    """The spoken forms, then (unless switched off) the correction, on `conv.recognized`. `tokenizer` (the
    recogniser's) tells common words; without it no word counts as common."""
    words, _ = sounds_like(conv.recognized, options)
    if options.correction:
        common = common_words(tokenizer) if tokenizer is not None else frozenset()
        words, _ = correct(words, index(options), common)
    conv.recognized = words
