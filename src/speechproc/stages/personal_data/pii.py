"""The PII detector: personal data said in a call, by kind (its `detectorClassLabel`).

Recognisers write what callers say in their own way (digits as numerals, "at" and "dot" for e-mail, names
capitalised), so each kind is found from what a recogniser writes, with the talk around it:

- `name`: a person's name. Words spaCy's named-entity recogniser tags PERSON in a turn; the capitalised
  words (or single letters, a name spelled out) after "my name is", "this is", "I'm", "speaking with",
  "Mr"/"Ms"/"Dr"; and the capitalised words of the answer to a question about a name. A common word is a
  name only where such talk or the recogniser's tag says so ("I will pay the bill" keeps Will and Bill).
- `dateOfBirth`: the date said within DATE_FOLLOW_MS after birth talk ("date of birth", "born",
  "birthday", "DOB"): month names, ordinals, day and year numbers, digits ("03/14/1985", "3 14 85").
- `address`: a house number followed within four words by a street word ("218 Maple Street"), with the
  capitalised words, state and ZIP code that follow in the same breath; and what answers address talk.
- `email`: a written address (`dan.smith@gmail.com`), and a spoken one: the words before "at" through
  "dot" and the domain ending ("dan dot smith at gmail dot com").
- `phone`: a run of 7-11 spoken digits (the recogniser's "555 218 4497" is one run) after phone talk
  ("phone", "number", "call", "reach", "cell", "mobile"), and any run of 10-11 digits.
- `account`: a run of 4 or more digits, or a word mixing letters and digits, after account talk
  ("account", "member", "policy", "reference", "customer", "ID").
"""
from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Sequence

from speechproc.conversation import DetectedClass, Token
from speechproc.stages.personal_data.pii_numbers import followed, numbers
from speechproc.stages.personal_data.pii_places import addresses
from speechproc.stages.personal_data.pii_strict import DEFAULT_STRICTNESS, strict_finds
from speechproc.stages.personal_data.pii_talk import BACK, PREAMBLE, Asker, answers, read_backs
from speechproc.stages.personal_data.pii_words import (
    DATE_DIGITS,
    DATE_JOINERS,
    MONTHS,
    NUMBER_WORDS,
    ORDINAL,
    SENTENCE_STARTS,
    SHORT_WORDS,
    STOP,
    Ends,
    capitalised,
    detection,
    domain_end,
    plain,
    speaker_starts,
    spelled,
    talk_before,
    words_span,
)

KINDS = ("name", "dateOfBirth", "address", "email", "phone", "account", "bankRouting", "pin", "driversLicense",
         "passport")
CONTEXT_MS = 30000  # talk this long before a number tells what the number is
DATE_FOLLOW_MS = 12000
MAX_NAME_WORDS = 3
MAX_SPELLED = 30  # letters of a name spelled out, at most
MAX_LOCAL_WORDS = 25  # words before an e-mail's "at", at most (a name spelled out)

RELATIONS = (r"colleague|husband|wife|partner|son|daughter|manager|supervisor|friend|brother|sister|mother|father|"
             r"mom|mum|dad|boss|neighbou?r|agent|representative|rep|technician|engineer|landlord|tenant")
NAME_CUE = re.compile(r"\b(my name is|my name's|name is|this is|i am|i'm|speaking with|talking to|it's|mr|mrs|ms|"
                      r"miss|dr|doctor|first name|last name|surname|thank you|thanks|(spoke|speak|talked|talk|spoken) "
                      r"(with|to)|ask(ed)? for|named|called|"
                      rf"({RELATIONS})('s| is| was|'s name is|'s name)?)$")
# what follows is a name, however it was written: "my name is", "the last name is", not "what name is"
STRONG_NAME_CUE = re.compile(r"\b(my|his|her|their|our|the|\w+'s) ((first|last|middle|full|maiden) )?name( is|'s)$|"
                             r"\bsurname is$")
BIRTH_TALK = re.compile(r"\b(date o[fn] birth|birth date|birthdate|born|birthday|dob|d o b)\b")
WRITTEN_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(\.[\w-]+)+")
PRONOUNS = frozenset("i i'm i'll i've i'd he she we they you it".split())  # capitalised, and never a name
PAUSE_MS = 1500
TAGGED_CHARS = 100_000  # characters of one turn given to spaCy at once (it refuses a million)
MAX_WORD_CHARS = 100  # of a word given to spaCy; no name is longer
TAGGED_BATCH = 64  # turns spaCy reads at once
READING_WORDS = frozenset("to let me read".split())  # "let me read dan at gmail dot com" ends no address
MIN_SPELLED = 3  # letters in a row, at least, for a spelling
AFTER_PRONOUN = frozenset("think thought used use have had am was will would can could did do need want got called tried "
                          "know mean guess said just also don't didn't can't".split())  # "I think": no letter "I"
ABBREVIATIONS = frozenset(("atm irs dvr pdf tv id pin usa uk us fbi ceo vpn sim usb wifi dsl isp lte gps sms faq ssn "
                           "dob cvv ups dhl fedex abc cnn bbc nba nfl ok am pm eta asap diy hr it ai api url").split())



# --- names ----------------------------------------------------------------------------------------------

def _sentence_end(word: Token, ends: Ends) -> bool:
    """Whether a sentence ends after the word (a full stop, question or exclamation mark after it)."""
    return (word.speaker, word.e) in ends or word.w.rstrip("\"')")[-1:] in (".", "?", "!")


def _cued_names(words: Sequence[Token], ends: Ends = frozenset()) -> list[list[Token]]:
    """Capitalised words or spelled letters after name talk in the same sentence ("Thank you. Have a nice
    day" names nobody; the full stop after an initial ends none), never a word that starts sentences; after
    "my name is" (not "what name is"), what ends the turn however it was written."""
    out: list[list[Token]] = []
    turn_end = [0] * len(words)
    for k in range(len(words) - 1, -1, -1):
        same = k + 1 < len(words) and words[k + 1].speaker == words[k].speaker
        turn_end[k] = turn_end[k + 1] if same else k + 1
    for i in range(1, len(words)):
        if words[i - 1].speaker != words[i].speaker or _sentence_end(words[i - 1], ends):
            continue
        before = " ".join(plain(w) for w in words[max(0, i - 4):i])
        if NAME_CUE.search(before) is None:
            continue
        strong = STRONG_NAME_CUE.search(before) is not None
        if strong and turn_end[i] - i <= MAX_NAME_WORDS and all(plain(w) not in PRONOUNS for w in words[i:turn_end[i]]):
            out.append(list(words[i:turn_end[i]]))  # "my last name is okay FOR": the turn ends with the name
            continue
        run: list[Token] = []
        names_seen = 0
        for w in words[i:i + MAX_SPELLED]:
            letters = plain(w)
            if w.speaker != words[i].speaker or not letters or letters in PRONOUNS | SENTENCE_STARTS or \
                    run and (w.s - run[-1].e > PAUSE_MS or _sentence_end(run[-1], ends) and not spelled(run[-1])):
                break
            letter = spelled(w) or _capitals(w)
            if letter or (names_seen < MAX_NAME_WORDS and (capitalised(w) or strong and _lower_name(w))):
                run.append(w)
                names_seen += not letter
            else:
                break
        if run:
            out.append(run)
    return out


def _tagged_names(words: Sequence[Token], nlp) -> list[list[Token]]:
    """Words spaCy tags PERSON, turn by turn (a turn: one speaker's words in a row; a long one in pieces of
    at most TAGGED_CHARS characters, as spaCy reads a text of a limited length), the turns read in batches."""
    pieces = _pieces(words)
    texts = ["".join(w.w[:MAX_WORD_CHARS] + " " for w in turn) for turn, _ in pieces]
    out: list[list[Token]] = []
    for (turn, offsets), doc in zip(pieces, nlp.pipe(texts, batch_size=TAGGED_BATCH)):
        for entity in doc.ents:
            if entity.label_ != "PERSON":
                continue
            first = bisect.bisect_left(offsets, entity.start_char)
            last = bisect.bisect_left(offsets, entity.end_char)
            tagged = list(turn[first:last])
            if tagged and plain(tagged[0]) in BACK and first >= 2 and plain(turn[first - 2]) == "read":
                tagged.pop(0)  # "let me read that back" heard "... read that Mac"
            while tagged and (plain(tagged[-1]) in STOP or any(c.isdigit() for c in tagged[-1].w)):
                tagged.pop()  # the tagger reads no punctuation: "John How", "Mac 4"
            while tagged and plain(tagged[0]) in STOP:
                tagged.pop(0)
            if tagged:
                out.append(tagged)
    return out


def _pieces(words: Sequence[Token]) -> list[tuple[Sequence[Token], list[int]]]:
    """The turns as spaCy reads them, each with the offset of each word in its text."""
    out: list[tuple[Sequence[Token], list[int]]] = []
    start = 0
    while start < len(words):
        end = start
        size = 0
        while end < len(words) and words[end].speaker == words[start].speaker and size < TAGGED_CHARS:
            size += min(len(words[end].w), MAX_WORD_CHARS) + 1
            end += 1
        turn = words[start:end]
        offsets, size = [], 0
        for w in turn:
            offsets.append(size)
            size += len(w.w[:MAX_WORD_CHARS]) + 1
        out.append((turn, offsets))
        start = end
    return out


def _capitals(word: Token) -> bool:
    """Letters a recogniser ran together from a spelling ("RYA", "CHMIDT"): two or more capitals, no vowel
    pattern of an ordinary word required."""
    text = word.w.strip(".,?!;:\"'()")
    return 2 <= len(text) <= 8 and text.isalpha() and text.isupper() and text.lower() not in STOP | {"ok", "id"}


def _lower_name(word: Token) -> bool:
    """A word after "my name is" that may be a name the recogniser wrote in lower case."""
    text = plain(word)
    return text.isalpha() and text not in STOP and text not in SHORT_WORDS and len(text) > 1


def _covered(words: Sequence[Token], found: Sequence[DetectedClass], label: str) -> set[int]:
    """The positions in `words` (in time order) of the words wholly inside a detection labelled `label`."""
    starts = speaker_starts(words)
    out: set[int] = set()
    for one in found:
        if one.label == label:
            for speaker, spans in one.segments.items():
                mine = starts.get(speaker, [])
                for s, e in spans:
                    for _, k in mine[bisect.bisect_left(mine, (s, -1)):bisect.bisect_right(mine, (e, len(words)))]:
                        if words[k].e <= e:
                            out.add(k)
    return out


def spelled_names(words: Sequence[Token], found: Sequence[DetectedClass], ends: Ends = frozenset()) -> list[DetectedClass]:
    """Letters spelled out in a row in one sentence, anywhere and by anyone ("K O W A L S K I", "A I S H A"
    with its "A" and "I" between letters), at least MIN_SPELLED of them, that are not an e-mail address found
    nor a common abbreviation spelled ("D V R"): a name spelled. Capitals a recogniser ran together ("RYA")
    join a run that holds a letter said alone."""
    out = []
    in_email = _covered(words, found, "email")
    k = 0
    while k < len(words):
        end = k
        while end < len(words) and words[end].speaker == words[k].speaker and _letter_like(words, end, k) and \
                (end == k or words[end].s - words[end - 1].e < PAUSE_MS and not _sentence_end(words[end - 1], ends)):
            end += 1
        while end > k and plain(words[end - 1]) in ("a", "i") and end < len(words) and \
                words[end].speaker == words[k].speaker and plain(words[end]) in AFTER_PRONOUN | {"week", "day", "lot"}:
            end -= 1  # "D V R I think", "the IRS a week ago": a pronoun or article after letters is no letter
        run = words[k:end]
        alone = sum(spelled(w) for w in run)
        joined = "".join(plain(w) for w in run)
        if alone and (alone + sum(plain(w) in ("a", "i") for w in run) >= MIN_SPELLED or len(joined) >= MIN_SPELLED + 1) \
                and joined not in ABBREVIATIONS and not all(j in in_email for j in range(k, end)):
            out.append(detection("name", [words_span(run)]))
        k = max(end, k + 1)
    return out


def _letter_like(words: Sequence[Token], j: int, start: int) -> bool:
    """A letter said alone, capitals run together, or "a"/"I" between letters of a spelling."""
    return spelled(words[j]) or _capitals(words[j]) or \
        j > start and plain(words[j]) in ("a", "i") and spelled(words[j - 1])


def repeated_names(words: Sequence[Token], found: Sequence[DetectedClass]) -> list[DetectedClass]:
    """Every other time a name found is said capitalised, by anyone ("Thank you, Priya"): a word of a name
    of two words or more, or one that starts no sentences."""
    named = _covered(words, found, "name")
    said = {plain(words[k]) for k in named if capitalised(words[k]) and len(plain(words[k])) > 2 and
            plain(words[k]) not in SHORT_WORDS | SENTENCE_STARTS | ABBREVIATIONS}
    return [detection("name", [words_span([w])]) for k, w in enumerate(words)
            if k not in named and plain(w) in said and capitalised(w)]


# --- dates of birth ---------------------------------------------------------------------------------------

def _date_like(word: Token) -> bool:
    text = plain(word)
    return (text in MONTHS or text in NUMBER_WORDS or ORDINAL.match(text) is not None or
            DATE_DIGITS.match(text) is not None or text in DATE_JOINERS)


def dates_of_birth(words: Sequence[Token]) -> list[DetectedClass]:
    """Dates said within DATE_FOLLOW_MS after birth talk ("the 17th of September, 1984")."""
    out = []
    i = 0
    while i < len(words):
        if plain(words[i]) in DATE_JOINERS or not _date_like(words[i]) or \
                not talk_before(words, i, BIRTH_TALK, DATE_FOLLOW_MS):
            i += 1
            continue
        k = i
        run = [words[i]]
        while i + 1 < len(words) and _date_like(words[i + 1]) and words[i + 1].s - run[-1].e < 2000 and \
                words[i + 1].speaker == run[0].speaker:
            i += 1
            run.append(words[i])
        while run and plain(run[-1]) in DATE_JOINERS:
            run.pop()
        if run and ORDINAL.match(plain(run[0])) and k and plain(words[k - 1]) == "the" and \
                words[k - 1].speaker == run[0].speaker:
            run.insert(0, words[k - 1])  # "the 17th of September"
        if run:
            out.append(detection("dateOfBirth", [words_span(run)]))
        i += 1
    return out


# --- e-mail -------------------------------------------------------------------------------------------------


EMAIL_CUE = re.compile(r"\b(e-?mail (it |this |that )?(to|me at)|e-?mail (address )?is|(send|e-?mail) (it|this|that|them|"
                       r"the \w+|a \w+|my \w+) to|reach me at)$")


def _cued_emails(words: Sequence[Token]) -> list[DetectedClass]:
    """What follows "send the receipt to", "my email is" through the domain's ending, however its "at" was heard
    ("to mr dot nata dot edu via nat dot com")."""
    out = []
    for i in range(1, len(words)):
        before = " ".join(plain(w) for w in words[max(0, i - 5):i] if w.speaker == words[i].speaker)
        if not EMAIL_CUE.search(before):
            continue
        end = next((j for j in range(i, min(len(words), i + MAX_LOCAL_WORDS)) if words[j].speaker == words[i].speaker
                    and domain_end(words, j)), None)
        if end is not None:
            while (later := next((j for j in range(end + 1, min(len(words), end + 8))
                                  if words[j].speaker == words[i].speaker and domain_end(words, j)), None)):
                end = later
            out.append(detection("email", [words_span(words[i:end + 1])]))
    return out


def emails(words: Sequence[Token]) -> list[DetectedClass]:
    out = _cued_emails(words)
    for i, w in enumerate(words):
        text = w.w.strip(".,?!;:\"'()")
        if WRITTEN_EMAIL.fullmatch(text):
            out.append(detection("email", [words_span([w])]))
            continue
        if plain(w) != "at" or i == 0:
            continue
        end = next((j for j in range(i + 1, min(len(words), i + 8)) if domain_end(words, j)), None)
        if end is None:
            continue
        start = i - 1
        while start > 0 and i - start < MAX_LOCAL_WORDS and words[start - 1].speaker == w.speaker and \
                words[start].s - words[start - 1].e < 1500 and \
                (plain(words[start - 1]) not in PREAMBLE | READING_WORDS or _letter_among_letters(words, start - 1)) and \
                (i - start < 5 or _spelling(words[start - 1])):
            start -= 1  # up to four words before "at", more while they are spelled letters ("d a n dot ...")
        out.append(detection("email", [words_span(words[start:end + 1])]))
    return out


def _letter_among_letters(words: Sequence[Token], j: int) -> bool:
    """Whether words[j] is a letter said between other letters ("P R I Y A": the "I" is no pronoun)."""
    return len(plain(words[j])) == 1 and j + 1 < len(words) and len(plain(words[j + 1])) == 1


def _spelling(word: Token) -> bool:
    """A letter or two said one by one, or the "dot" between spelled names."""
    text = plain(word)
    return (len(text) <= 2 and text.isalpha() and text not in SHORT_WORDS) or \
        text in ("dot", "not", "underscore", "dash")


def find(tokens: Sequence[Token], kinds: Sequence[str] = KINDS, nlp=None, ask: Asker | None = None,
         strictness: str = DEFAULT_STRICTNESS, broad_ask: Asker | None = None) -> list[DetectedClass]:
    """Every detection of `kinds` in `tokens` (a transcript's tokens in time order; its punctuation tells where
    sentences end); `nlp` (a spaCy pipeline) tags names, `ask` reads the questions no pattern reads. Every
    kind is looked for, so that a number's kind does not depend on `kinds`, then those of `kinds` kept;
    stretches of one kind and speaker that overlap are one detection. With `strictness` "strict", what
    `stages/personal_data/pii_strict.py` adds (`broad_ask` reading questions more loosely) follows, where `balanced` took
    nothing, each marked `strict_only`."""
    words = [t for t in tokens if t.is_word]
    ends = frozenset((t.speaker, t.e) for t in tokens if t.m == "punc" and t.w in (".", "?", "!"))
    found = merged(d for d in _found(words, nlp, ends, ask) if d.label in kinds)
    if strictness != "strict":
        return found
    asks = frozenset((t.speaker, t.e) for t in tokens if t.m == "punc" and t.w == "?")
    added = uncovered(merged(d for d in strict_finds(words, ends, asks, found, kinds, ask, broad_ask) if d.label in kinds), found)
    return sorted(found + added, key=_start)


def _start(one: DetectedClass) -> tuple[int, str]:
    return min(s for spans in one.segments.values() for s, _ in spans), one.label


def uncovered(extra: Iterable[DetectedClass], found: Sequence[DetectedClass]) -> list[DetectedClass]:
    """The parts of `extra`'s spans that no detection of `found` covers, nor an earlier one of `extra` (of any
    kind, on the same speaker), each a detection of its own marked `strict_only`."""
    taken: dict[str, list[tuple[int, int]]] = {}
    for one in found:
        for speaker, spans in one.segments.items():
            taken.setdefault(speaker, []).extend(spans)
    out = []
    for one in extra:
        for speaker, spans in one.segments.items():
            for s, e in spans:
                pieces = []
                for a, b in sorted(taken.get(speaker, [])):
                    if b <= s or a >= e:
                        continue
                    if a > s:
                        pieces.append((s, a))
                    s = max(s, b)
                    if s >= e:
                        break
                pieces += [(s, e)] if s < e else []
                out += [DetectedClass(one.label, {speaker: [piece]}, strict_only=True) for piece in pieces]
                taken.setdefault(speaker, []).extend(pieces)
    return out


def merged(found: Iterable[DetectedClass]) -> list[DetectedClass]:
    """The detections with the overlapping (or touching) spans of one kind and one speaker joined into one,
    in order of their start."""
    spans: dict[tuple[str, str], list[tuple[int, int]]] = {}
    for one in found:
        for speaker, pieces in one.segments.items():
            spans.setdefault((one.label, speaker), []).extend(pieces)
    out = []
    for (label, speaker), pieces in spans.items():
        pieces.sort()
        joined = [list(pieces[0])]
        for s, e in pieces[1:]:
            if s <= joined[-1][1]:
                joined[-1][1] = max(joined[-1][1], e)
            else:
                joined.append([s, e])
        out += [detection(label, [(speaker, s, e)]) for s, e in joined]
    return sorted(out, key=_start)


def _found(words: Sequence[Token], nlp, ends: Ends, ask: Asker | None) -> list[DetectedClass]:
    """Every kind's detections (`find` keeps those asked for)."""
    out: list[DetectedClass] = answers(words, KINDS, ends, ask)
    out += [detection("name", [words_span(run)]) for run in _cued_names(words, ends)]
    out += dates_of_birth(words) + emails(words)
    out += numbers(words, KINDS, out)
    out += read_backs(words, out, KINDS)
    out += addresses(words, ends, [d for d in out if d.label == "address"])
    out += followed(words, out)
    # a name the talk tells is one is said again ("Thank you, Priya"); a tagger's guess is not
    out += spelled_names(words, out, ends)
    out += repeated_names(words, out)
    out += [detection("name", [words_span(run)]) for run in _tagged_names(words, nlp)] if nlp is not None else []
    return out
