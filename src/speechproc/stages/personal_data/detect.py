"""Detectors (PCI, SSN, Number, PII) and transcript redaction (v3 `prediction.detectors`).

PCI: a run of 13-19 spoken digits that passes the Luhn check, or that follows card talk ("card",
"visa", ...) within CONTEXT_MS; then, within FOLLOW_MS after it, a 3-4 digit expiry date after
expiry talk and a 3-4 digit security code after security-code talk, or both as one run of 6-8 digits
(read out in one breath, the recogniser may write them as one number). SSN: 9 digits after social
security talk. Number: any run of 4 or more digits. Amounts of money are never runs. PII: personal
data by kind (`stages/personal_data/pii.py`), each detection labelled with its kind.

PCI `detectionLevel`: `entireRegion` (default) is the card conversation, from the card talk to the
last card item, with REGION_BUFFER_MS before and after, on every speaker; `probableNumbers` is each
digit region with NUMBER_BUFFER_MS around it; `numbersOnly` is the digit words alone.
"""
from __future__ import annotations

import bisect
import re
from collections.abc import Mapping, Sequence

from speechproc import errors as E
from speechproc.conversation import Conversation, DetectedClass, DetectorFindings, Token
from speechproc.engines import inventory
from speechproc.engines.models import BUNDLED_SENTENCE_ENCODER, load_sentence_encoder, load_spacy, loaded_once
from speechproc.stages.options import DetectOptions
from speechproc.stages.personal_data import pii
from speechproc.stages.personal_data.numbers import DigitRun, digit_runs, luhn
from speechproc.stages.personal_data.pii_questions import Askers, QuestionReader
from speechproc.stages.personal_data.pii_strict import DEFAULT_STRICTNESS, STRICT_SIMILARITY

DETECTORS = {  # name -> (display name, class label)
    "PCI": ("Payment card numbers, expiry dates and security codes", "PCI"),
    "SSN": ("US social security numbers", "ssn"),
    "Number": ("Runs of four or more spoken digits", "Number"),
    "PII": ("Personal data: names, dates of birth, addresses, e-mail, phone and account numbers", "PII"),
}
VERSION = "1.0.0"
CONTEXT_MS = 30000
FOLLOW_MS = 60000
CUE_MS = 10000
REGION_BUFFER_MS = 1000
NUMBER_BUFFER_MS = 300
CARD_TALK = re.compile(r"\b(card|credit|debit|visa|master ?card|amex|american express|discover|cardholder)\b")
EXPIRY_TALK = re.compile(r"\b(expir\w*|exp|valid|good (thru|through)|end date)\b")
CODE_TALK = re.compile(r"\b(security code|cvv|cvc|csc|cv2|verification code|(three|four|3|4)[ -]digit|"
                       r"code on the back|back of the card)\b")
EXPIRY_OR_CODE_TALK = re.compile(f"{EXPIRY_TALK.pattern}|{CODE_TALK.pattern}")
SSN_TALK = re.compile(r"\b(social security|social|ssn|security number)\b")

Span = tuple[int, int]


def _talk(words: Sequence[Token], start: int, end: int, pattern: re.Pattern) -> Token | None:
    """The first word of talk matching `pattern` said (by anyone) in [start, end]; `words` in time order."""
    first = bisect.bisect_left(words, start, key=lambda w: w.s)
    last = bisect.bisect_right(words, end, key=lambda w: w.s)
    window = [w for w in words[first:last] if w.is_word]
    text, offsets = "", []
    for w in window:
        offsets.append(len(text))
        text += w.w.lower().strip(".,?!;:") + " "
    match = pattern.search(text)
    if not match:
        return None
    return window[max(i for i, o in enumerate(offsets) if o <= match.start())]


def _follower(runs: Sequence[DigitRun], after: DigitRun, words: Sequence[Token], cue: re.Pattern,
              sizes: range = range(3, 5)) -> DigitRun | None:
    """The first run of `sizes` digits within FOLLOW_MS after a card number that comes after `cue` talk."""
    for run in runs:
        if run.s > after.e and run.s - after.e <= FOLLOW_MS and len(run.digits) in sizes and \
                _talk(words, run.s - CUE_MS, run.s, cue) is not None:
            return run
    return None


def _card_items(runs: Sequence[DigitRun], card: DigitRun, words: Sequence[Token]) -> list[DigitRun]:
    """The card number and what follows it: the expiry date and the security code, each a run of its own,
    or both in one run of 6-8 digits when the recogniser heard them read out in one breath (then a later
    3-4 digit run after code talk, a confirmation number say, is not taken for the code)."""
    followers = [f for f in (_follower(runs, card, words, EXPIRY_TALK), _follower(runs, card, words, CODE_TALK))
                 if f is not None]
    together = _follower(runs, card, words, EXPIRY_OR_CODE_TALK, range(6, 9))
    if together is not None and all(together.s < f.s for f in followers):
        followers = [together]
    items = [card]
    for follower in followers:
        if id(follower) not in {id(x) for x in items}:
            items.append(follower)
    return items


def _spans_by_speaker(runs: Sequence[DigitRun], buffer: int) -> dict[str, list[Span]]:
    out: dict[str, list[Span]] = {}
    for run in runs:
        out.setdefault(run.speaker, []).append((max(0, run.s - buffer), run.e + buffer))
    return out


def _region(words: Sequence[Token], start: int, end: int) -> dict[str, list[Span]]:
    """A time region as one segment per speaker: from its first to its last word in the region, clipped."""
    found: dict[str, Span] = {}
    for w in words:
        if w.is_word and w.e > start and w.s < end:
            s, e = found.get(w.speaker, (w.s, w.e))
            found[w.speaker] = (min(s, w.s), max(e, w.e))
    return {speaker: [(max(s, start), min(e, end))] for speaker, (s, e) in found.items()}


def pci(words: Sequence[Token], runs: Sequence[DigitRun], level: str = "entireRegion") -> list[DetectedClass]:
    """Card conversations: the card number, and the expiry date and security code that follow it."""
    out: list[DetectedClass] = []
    used: set[int] = set()
    for run in runs:
        if id(run) in used or not 13 <= len(run.digits) <= 19:
            continue
        cue = _talk(words, run.s - CONTEXT_MS, run.e, CARD_TALK)
        if not luhn(run.digits) and cue is None:
            continue  # an order or account number, not a card
        items = _card_items(runs, run, words)
        used.update(id(x) for x in items)
        if level == "numbersOnly":
            segments = _spans_by_speaker(items, 0)
        elif level == "probableNumbers":
            segments = _spans_by_speaker(items, NUMBER_BUFFER_MS)
        else:
            start = min([run.s] + ([cue.s] if cue is not None else [])) - REGION_BUFFER_MS
            end = max(x.e for x in items) + REGION_BUFFER_MS
            segments = _region(words, max(0, start), end)
        out.append(DetectedClass(DETECTORS["PCI"][1], segments))
    return out


def ssn(words: Sequence[Token], runs: Sequence[DigitRun]) -> list[DetectedClass]:
    return [DetectedClass(DETECTORS["SSN"][1], _spans_by_speaker([run], 0)) for run in runs
            if len(run.digits) == 9 and _talk(words, run.s - CONTEXT_MS, run.e, SSN_TALK) is not None]


def long_numbers(runs: Sequence[DigitRun]) -> list[DetectedClass]:
    """The Number detector: every run of 4 or more digits."""
    return [DetectedClass(DETECTORS["Number"][1], _spans_by_speaker([run], 0)) for run in runs if len(run.digits) >= 4]


def detect(conv: Conversation, name: str, params: Mapping[str, str | None]) -> list[DetectedClass]:
    words = sorted((w for w in conv.words if w.is_word), key=lambda w: w.s)
    runs = digit_runs(words)
    if name == "PCI":
        return pci(words, runs, params.get("detectionLevel") or "entireRegion")
    if name == "SSN":
        return ssn(words, runs)
    if name == "PII":
        tokens = sorted(conv.words, key=lambda w: (w.s, w.p))  # with punctuation: where sentences end
        return personal_data(tokens, entity_types(params.get("entityTypes")), strictness(params))
    return long_numbers(runs)


def personal_data(tokens: Sequence[Token], kinds: Sequence[str] = pii.KINDS,
                  strict: str = DEFAULT_STRICTNESS) -> list[DetectedClass]:
    """The PII detector's detections in a transcript's tokens, with spaCy tagging names and the bundled
    sentence encoder reading the questions no pattern reads (and, in strict mode, more loosely)."""
    askers = Askers(question_reader(), STRICT_SIMILARITY)
    return pii.find(tokens, kinds, load_spacy(), askers.ask, strict, askers.broad_ask)


def strictness(params: Mapping[str, str | None]) -> str:
    """The PII detector's `strictness` parameter, or the default."""
    return params.get("strictness") or DEFAULT_STRICTNESS


@loaded_once(maxsize=1)
def question_reader() -> QuestionReader:
    return QuestionReader(load_sentence_encoder(BUNDLED_SENTENCE_ENCODER))


def entity_types(value: str | None) -> tuple[str, ...]:
    """The PII kinds an `entityTypes` parameter names (comma-separated), or every kind."""
    if not value:
        return pii.KINDS
    return tuple(kind for kind in pii.KINDS if kind in {part.strip() for part in value.split(",")})


def redact_words(words: Sequence[Token], regions: dict[str, list[Span]], replacement: str) -> int:
    """Replace every word token overlapping its speaker's regions; return how many were replaced."""
    count = 0
    for w in words:  # a word the recogniser gave no duration counts where it stands, an edge included
        if w.is_word and any(w.e > s and w.s < e or w.s == w.e and s <= w.s <= e for s, e in regions.get(w.speaker, [])):
            w.w = replacement
            count += 1
    return count


def needs(options: DetectOptions) -> tuple[str, ...]:
    """The spaCy pipeline and the sentence encoder (`inventory` keys) when a PII detector is configured."""
    return (inventory.SPACY, inventory.MINILM) if any(d.name == "PII" for d in options.detectors) else ()


def run(conv: Conversation, options: DetectOptions) -> None:
    """Run every configured detector on the words as said, then redact what they found."""
    if not options.english:
        conv.warn(E.FEATURE_NOT_AVAILABLE, f"detectors are not available for {options.language}")
        return
    results = []
    for wanted in options.detectors:
        result = DetectorFindings(wanted.detector_id, wanted.name, DETECTORS[wanted.name][0], VERSION,
                                detect(conv, wanted.name, wanted.parameters))
        result.replacement, result.tone = wanted.replacement, wanted.tone
        result.strictness = strictness(wanted.parameters) if wanted.name == "PII" else None
        results.append(result)
    for result in results:  # redact after every detector has read the words as said
        if result.replacement is not None:
            for detection in result.detections:
                redact_words(conv.words, detection.segments, result.replacement)
    conv.detectors = results
