"""What the PII detector takes in its `strict` mode beyond `balanced`: when in doubt, redact.

`balanced` finds personal data by the forms a recogniser writes it in and the talk around it; what it misses
is data the recogniser garbled ("the mall now isn't" for a name) in answer to questions no pattern reads. A
compliance user would rather lose some ordinary words than leak one date of birth, so `strict` adds:

- **The answer after a data question, whole**: a question `balanced` reads as asking for data, or one a
  broader catch reads so (who, where, when born, which number, how to spell; or the sentence encoder's
  nearest example at a lower similarity, STRICT_SIMILARITY) has its answer taken from its first word past the
  preamble ("yes, it's") to the answerer's next question or the end of the turn.
- **Suspect short answers**: an answer of at most SHORT_ANSWER_WORDS words to any question, when it holds a
  digit or number word, a letter said alone, or a capitalised word that is no common word.
- **Long numbers**: every run of LONG_NUMBER_DIGITS or more digits, written or said as words, anywhere
  (amounts of money are no runs).
- **Names spelled a word to each letter** ("H for house, U for umbrella", heard as "in red I'm in orange I'm
  in sugar"): SPELLING_LINKS or more "for" or "in", each at most SPELLING_GAP words after the last, in one turn.
- **Whatever is read back, whole**: the words after a checking cue ("just to confirm", "let me check the
  surname the same way", "I'll repeat that to be sure") to the end of their sentence or a confirming question,
  at most READ_BACK_WORDS, whether or not the turn before was heard to hold data.
- **Runs of suspect words**: SUSPECT_RUN or more digits, number words, letters said alone or uncommon
  capitalised words, each at most SUSPECT_GAP words after the one before, in one turn and no amount of money
  ("the letter went to suite 14b 66 is all garden Norich and R2 14k England").

Each of these is labelled with the kind asked for, else the kind its words look like. `find` keeps, of them,
what `balanced` did not already take, and marks it (`DetectedClass.strict_only`).
"""
from __future__ import annotations

import bisect
import re
from collections.abc import Sequence

from speechproc.conversation import DetectedClass, Token
from speechproc.stages.personal_data import numbers
from speechproc.stages.personal_data.numbers import digit_runs
from speechproc.stages.personal_data.pii_talk import (
    ANSWER_MS,
    CHECKING_CUES,
    CONFIRMING,
    DIGIT_HEARD,
    DIGITS_ONLY,
    PREAMBLE,
    Asker,
    asked_kinds,
    looks_like,
    read_backs,
    turns_of,
)
from speechproc.stages.personal_data.pii_words import (
    SENTENCE_STARTS,
    STOP,
    WEEKDAYS,
    Ends,
    capitalised,
    detection,
    domain_end,
    number_word,
    plain,
    positions,
    speaker_starts,
    spelled,
    words_span,
)

STRICTNESS = ("balanced", "strict")
DEFAULT_STRICTNESS = "balanced"
STRICT_SIMILARITY = 0.5  # the sentence encoder's nearest example, at least this alike, for the broad catch
SHORT_ANSWER_WORDS = 6
LONG_NUMBER_DIGITS = 3
QUESTION_WORDS = 25  # the words of a turn read for its question: its last
MAX_LOCAL_WORDS = 6  # words before a domain's ending, at most, taken with it
NUMBER_WORDS = 3  # words of a number said with "hundred" or "thousand", at least
MONEY = numbers.MONEY - {"hundred", "thousand", "million", "billion"} | {"quid", "pence"}  # "hundred" says a number here
ABBREVIATIONS = frozenset("ok id tv pc us uk usa atm dvr pdf sms gps am pm".split())
SHORT_HEARD = 3  # letters of a word, at most, right before something taken that may be its first part heard
NEAR = 3  # words, in one turn, from something taken
SHORT_QUESTION = 8  # a sentence of at most this many words with "your" in it asks ("And your date of birth.")
# the broad catch: what a question asks about, by its words, whoever heard them how
BROAD = (
    ("dateOfBirth", re.compile(r"\b(born|birth|how old|your age)\b")),
    ("email", re.compile(r"\be-?mail\b")),
    ("name", re.compile(r"\b(who|whom|whose|you are|spell|spelling|initials?|name|called)\b")),
    ("address", re.compile(r"\b(where|address|street|city|town|zip|post ?code|postal|deliver|ship)\b")),
    ("phone", re.compile(r"\b(which|what|your|the|a|any) (\w+ )?(number|digits)\b|\b(phone|ring)\b")),
)
# the first words of a sentence that asks ("And the city?", "Who am I speaking with")
OPENERS = re.compile(r"^((and|so|okay|ok|now|also|then|great|thanks|thank you|sorry),? )*(what|what's|which|who|who's|"
                     r"whom|whose|where|when|how|can|could|may|would|will|do|does|did|is|are|am|have|has|should|"
                     r"the|a|an|your|and)\b")
YOUR = re.compile(r"\byour\b")
# talk after which whatever follows is a name, however it was heard ("your colleague at Manhattan")
NAME_CUE = re.compile(r"\b(colleague|husband|wife|partner|son|daughter|manager|supervisor|friend|brother|sister|"
                      r"mother|father|boss|named|called|(spoke|speak|talked|talk|spoken|speaking) (with|to)|"
                      r"name is|name's)$")
MAX_NAME_WORDS = 3
PAUSE_MS = 1500
RESTATING = frozenset("is was are it's its my the a an number no".split())  # "my passport number is"
NOT_NAMES = frozenset("last next this that week month year ago today tomorrow yesterday".split())
# words common enough that a short answer of them holds no name ("Sure.", "No, that's all.")
COMMON = frozenset("yes yeah yep yup no nope sure okay ok correct right exactly fine great good perfect thanks thank "
                   "you please sorry hello hi bye maybe nothing all that's that it it's is was not just one moment "
                   "hold on wait what pardon again he she they we you i me him her them us his our their".split())


SPELLING_WORDS = frozenset(("for", "in"))  # "H for house", "R as in red"
SPELLING_LINKS = 4
SPELLING_GAP = 3
SUSPECT_RUN = 4
SUSPECT_GAP = 2
READ_BACK_WORDS = 25
# a cue that reads back what was said, however the turn before was heard (a checking cue of `pii_talk`, and more)
CHECKING_BACK = re.compile(rf"\b({CHECKING_CUES}|let me check the (surname|name|spelling|postcode|post code|zip|address|email"
                           r"|number)( the same way)?|(i'll|i will|i) repeat( that| it)?( to be sure)?|to be sure"
                           r"|reading it back|say it back( to you)?|so i've got it|i'm showing (your account|you) as"
                           r"|i have you (down )?as)$")


ORDINARY = COMMON | STOP | SENTENCE_STARTS | PREAMBLE | WEEKDAYS  # never suspect, however capitalised
NOT_A_NAME = ORDINARY | NOT_NAMES
LEADING = PREAMBLE | RESTATING  # words before an answer's data


def last_sentence(turn: Sequence[Token], ends: Ends) -> list[Token]:
    """The turn's words after its last sentence end but one: what was said last (the question the next turn
    answers, not the greeting before it)."""
    start = next((k + 1 for k in range(len(turn) - 2, -1, -1) if (turn[k].speaker, turn[k].e) in ends), 0)
    return list(turn[start:])


def _question(turn: Sequence[Token], ends: Ends, asks: Ends) -> str | None:
    """The words of the turn's last sentence when it asks something (a question mark after it, `asks` holding
    the speaker and end time of each word one follows; a question's first words; or "your"), else None."""
    last = last_sentence(turn, ends)[-QUESTION_WORDS:]
    text = " ".join(plain(w) for w in last)
    marked = turn[-1].w.rstrip().endswith("?") or (turn[-1].speaker, turn[-1].e) in asks
    return text if marked or OPENERS.match(text) or len(last) <= SHORT_QUESTION and YOUR.search(text) else None


def _broad_kind(question: str) -> str | None:
    return next((kind for kind, pattern in BROAD if pattern.search(question)), None)


def _until_question(answer: Sequence[Token], asks: Ends) -> list[Token]:
    """The answer up to the end of its first sentence that asks something back ("..., is that right?")."""
    for k, w in enumerate(answer):
        if w.w.rstrip().endswith("?") or (w.speaker, w.e) in asks:
            return list(answer[:k + 1])
    return list(answer)


def _past_preamble(answer: Sequence[Token], question: Sequence[Token]) -> list[Token]:
    """The answer from its first word that is neither preamble ("yes, it's") nor a word of the question said
    again ("the license number is ...")."""
    asked = {plain(w) for w in question}
    start = 0
    while start < len(answer) - 1 and (plain(answer[start]) in LEADING or plain(answer[start]) in asked):
        start += 1
    return list(answer[start:])


def _without_idle_sentences(said: Sequence[Token], ends: Ends) -> list[Token]:
    """`said` without the sentences after its first that hold nothing suspect ("... Kevin Fisher. He asked me
    to call.")."""
    sentences: list[list[Token]] = [[]]
    for w in said:
        sentences[-1].append(w)
        if (w.speaker, w.e) in ends:
            sentences.append([])
    while len(sentences) > 1 and not any(map(_suspect, sentences[-1])):
        sentences.pop()
    return [w for sentence in sentences for w in sentence]


def _suspect(word: Token) -> bool:
    """A digit or number word, a letter said alone, or a capitalised word that is no common word."""
    text = plain(word)
    if number_word(word) or any(c.isdigit() for c in word.w) or spelled(word):
        return True
    return capitalised(word) and text not in ORDINARY


def whole_answers(words: Sequence[Token], ends: Ends, asks: Ends, ask: Asker | None,
                  broad_ask: Asker | None) -> list[DetectedClass]:
    """The answer after each data question, whole (see the module), and each short answer that holds
    something suspect. Only a turn's last sentence is read for its question."""
    turns = turns_of(words)
    pairs = [(last_sentence(q, ends), a) for q, a in zip(turns, turns[1:]) if a[0].s - q[-1].e <= ANSWER_MS]
    questions = [_question(q, ends, asks) for q, _ in pairs]
    kinds = asked_kinds([q for q, _ in pairs], ask)
    for i, question in enumerate(questions):
        if question is None:
            kinds[i] = None
        elif kinds[i] is None:
            kinds[i] = _broad_kind(question)
    unread = [i for i, kind in enumerate(kinds) if kind is None and questions[i] is not None]
    if broad_ask is not None and unread:
        for i, kind in zip(unread, broad_ask([" ".join(w.w for w in pairs[i][0]) for i in unread])):
            kinds[i] = kind
    out = []
    for (question_words, answer), question, kind in zip(pairs, questions, kinds):
        said = _without_idle_sentences(_past_preamble(_until_question(answer, asks), question_words), ends)
        if kind is None and question is not None and len(said) <= SHORT_ANSWER_WORDS and any(map(_suspect, said)):
            kind = _label(said)
        if kind in DIGITS_ONLY and not any(map(_suspect, said)):
            continue  # "Is there anything else Cobalt Mobile can do for you?": a number's answer holds one
        if kind is not None and said:
            out.append(detection(kind, [words_span(said)]))
    return out


def long_numbers(words: Sequence[Token]) -> list[DetectedClass]:
    """Every run of LONG_NUMBER_DIGITS or more digits, labelled by what it looks like."""
    return [detection(_label(run.words), [words_span(run.words)]) for run in digit_runs(words)
            if len(run.digits) >= LONG_NUMBER_DIGITS]


def _label(said: Sequence[Token]) -> str:
    """The kind words that no question named look like: a number (of fewer than the digits of an account
    number, too) is an account number unless it looks like more."""
    kind = looks_like(said)
    return "account" if kind == "name" and any(number_word(w) or any(c.isdigit() for c in w.w) for w in said) else kind


def names_again(words: Sequence[Token], found: Sequence[DetectedClass]) -> list[DetectedClass]:
    """Every word of a name `found`, said again anywhere in any case ("I'll note that may spoke with you"),
    when it is no common word."""
    named = {plain(words[k]) for k, label in _covered(words, found).items() if label == "name"}
    named = {n for n in named if len(n) > 2 and n.isalpha() and n not in NOT_A_NAME}
    return [detection("name", [words_span([w])]) for w in words if plain(w) in named]


def cued_names(words: Sequence[Token], ends: Ends) -> list[DetectedClass]:
    """The words after name talk ("your colleague", "spoke with"), up to MAX_NAME_WORDS in the same sentence,
    whatever they are, less the common words at their ends ("spoke with your colleague at Manhattan last
    week": "Manhattan")."""
    out = []
    for i in range(1, len(words)):
        before = " ".join(plain(w) for w in words[max(0, i - 3):i] if w.speaker == words[i].speaker)
        if (words[i - 1].speaker, words[i - 1].e) in ends or not NAME_CUE.search(before):
            continue
        run = [words[i]]
        for w in words[i + 1:i + MAX_NAME_WORDS]:
            if w.speaker != run[-1].speaker or w.s - run[-1].e > PAUSE_MS or (run[-1].speaker, run[-1].e) in ends:
                break
            run.append(w)
        if plain(run[0]) in ("your", "my", "his", "her", "our", "their", "the", "a"):
            continue  # "spoke with your colleague ...": the cue goes on
        while run and plain(run[-1]) in NOT_A_NAME:
            run.pop()
        while run and plain(run[0]) in NOT_A_NAME and plain(run[0]) != "i":
            run.pop(0)
        if run:
            out.append(detection("name", [words_span(run)]))
    return out


def neighbours(words: Sequence[Token], taken: Sequence[DetectedClass]) -> list[DetectedClass]:
    """Digits, letters said alone and uncommon capitalised words within NEAR words of something taken in the
    same turn ("three. My PIN is 2 0 3 9"); the words between two things taken NEAR words apart or less; and
    the word right beside something taken that starts or ends the turn, or that may be a digit heard as a
    word ("reach me on I'm 8 7 0 ..."); each labelled as the nearest thing taken."""
    covered = _covered(words, taken)
    out = []
    for turn in _turn_positions(words):
        inside = [k for k in turn if k in covered]
        for k in turn:
            if k in covered or not inside:
                continue
            at = bisect.bisect_left(inside, k)
            before, after = (inside[at - 1] if at else None), (inside[at] if at < len(inside) else None)
            nearest = min((j for j in (before, after) if j is not None), key=lambda j: abs(j - k))
            between = before is not None and after is not None and after - before <= NEAR + 1
            beside = abs(nearest - k) == 1 and (k in (turn[0], turn[-1]) or plain(words[k]) in DIGIT_HEARD or
                                                k + 1 == nearest and len(plain(words[k])) <= SHORT_HEARD)
            if between or beside or abs(nearest - k) <= NEAR and _suspect(words[k]):
                out.append(detection(covered[nearest], [words_span([words[k]])]))
    return out


def _covered(words: Sequence[Token], found: Sequence[DetectedClass]) -> dict[int, str]:
    """The position in `words` of every word a detection of `found` covers, with the label of the first."""
    starts = speaker_starts(words)
    out: dict[int, str] = {}
    for one in found:
        for speaker in one.segments:
            for first, last in positions(words, [DetectedClass(one.label, {speaker: one.segments[speaker]})],
                                         starts=starts):
                for k in range(first, last + 1):
                    if words[k].speaker == speaker:
                        out.setdefault(k, one.label)
    return out


def _turn_positions(words: Sequence[Token]) -> list[range]:
    out, start = [], 0
    for k in range(1, len(words) + 1):
        if k == len(words) or words[k].speaker != words[start].speaker:
            out.append(range(start, k))
            start = k
    return out


def domains(words: Sequence[Token], ends: Ends) -> list[DetectedClass]:
    """A domain's ending said anywhere ("rasa .com"), with the words before it in its sentence, up to
    MAX_LOCAL_WORDS, back from "to" or "at" ("forward the invoice to ..."): an e-mail address."""
    out = []
    for j, w in enumerate(words):
        if not domain_end(words, j):
            continue
        start = j
        while start > 0 and j - start < MAX_LOCAL_WORDS and words[start - 1].speaker == w.speaker and \
                (words[start - 1].speaker, words[start - 1].e) not in ends and plain(words[start - 1]) not in ("to",):
            start -= 1
        out.append(detection("email", [words_span(words[start:j + 1])]))
    return out


def spoken_numbers(words: Sequence[Token]) -> list[DetectedClass]:
    """Numbers said with "hundred" or "thousand" ("nineteen hundred fifty seven", "eight thousand eight
    hundred"), of NUMBER_WORDS words or more, that are no amount of money: a year or a house number."""
    out: list[DetectedClass] = []
    run: list[Token] = []
    for w in [*words, None]:
        said = w is not None and (number_word(w) or plain(w) in ("hundred", "thousand"))
        if w is not None and said and (not run or w.speaker == run[-1].speaker):
            run.append(w)
            continue
        money = w is not None and plain(w) in MONEY or any(x.w.lstrip()[:1] in "$£€" for x in run)
        if len(run) >= NUMBER_WORDS and not money and any(plain(x) in ("hundred", "thousand") for x in run):
            out.append(detection(_label(run), [words_span(run)]))
        run = [w] if w is not None and said else []
    return out


def letter_runs(words: Sequence[Token]) -> list[DetectedClass]:
    """Two or more letters in a row, said alone or run together in capitals ("S &T OS"), that are no common
    abbreviation: a name spelled."""
    out: list[DetectedClass] = []
    run: list[Token] = []
    for w in [*words, None]:
        text = w.w.strip(".,?!;:\"'()&") if w is not None else ""
        if w is not None and (spelled(w) or 1 <= len(text) <= 3 and text.isalpha() and text.isupper()) and \
                plain(w) not in ABBREVIATIONS and (not run or w.speaker == run[-1].speaker):
            run.append(w)
            continue
        if len(run) >= 2:
            out.append(detection("name", [words_span(run)]))
        run = [w] if w is not None and spelled(w) else []
    return out


def _close_runs(positions: Sequence[int], gap: int) -> list[list[int]]:
    """`positions` (ascending) grouped into runs, each position at most `gap` after the one before it."""
    runs: list[list[int]] = []
    for k in positions:
        if runs and k - runs[-1][-1] <= gap:
            runs[-1].append(k)
        else:
            runs.append([k])
    return runs


def spelled_as_words(words: Sequence[Token]) -> list[DetectedClass]:
    """A name spelled a word to each letter: SPELLING_LINKS or more "for" or "in" in one turn, each at most
    SPELLING_GAP words after the one before, with the two words before the first and the word after the last."""
    out = []
    for turn in turns_of(words):
        links = [k for k in range(1, len(turn) - 1) if plain(turn[k]) in SPELLING_WORDS]
        for run in _close_runs(links, SPELLING_GAP):
            if len(run) >= SPELLING_LINKS:
                out.append(detection("name", [words_span(turn[max(0, run[0] - 2):run[-1] + 2])]))
    return out


def suspect_runs(words: Sequence[Token]) -> list[DetectedClass]:
    """SUSPECT_RUN or more suspect words (`_suspect`) in one turn, each at most SUSPECT_GAP words after the one
    before, from the first to the last, unless a word of money stands among them or beside them."""
    out = []
    for turn in turns_of(words):
        for run in _close_runs([k for k, w in enumerate(turn) if _suspect(w)], SUSPECT_GAP):
            around = turn[max(0, run[0] - 1):run[-1] + 2]
            if len(run) >= SUSPECT_RUN and not any(plain(w) in MONEY or w.w.lstrip()[:1] in "$£€" for w in around):
                said = turn[run[0]:run[-1] + 1]
                out.append(detection(_label(said), [words_span(said)]))
    return out


def read_back_whole(words: Sequence[Token], ends: Ends) -> list[DetectedClass]:
    """The words after each turn's first checking cue (CHECKING_BACK) to the end of their sentence or a
    confirming question ("is that right"), at most READ_BACK_WORDS, labelled by what they look like."""
    out = []
    for turn in turns_of(words):
        text = [plain(w) for w in turn]
        cue = next((k for k in range(len(turn)) if CHECKING_BACK.search(" ".join(text[max(0, k - 6):k + 1]))), None)
        if cue is None:
            continue
        said: list[Token] = []
        for j in range(cue + 1, min(len(turn), cue + 1 + READ_BACK_WORDS)):
            if CONFIRMING.match(" ".join(text[j:j + 3])):
                break
            said.append(turn[j])
            if (turn[j].speaker, turn[j].e) in ends:
                break
        if said:
            out.append(detection(looks_like(said), [words_span(said)]))
    return out


def strict_finds(words: Sequence[Token], ends: Ends, asks: Ends, found: Sequence[DetectedClass], kinds: Sequence[str],
                 ask: Asker | None, broad_ask: Asker | None) -> list[DetectedClass]:
    """Everything `strict` takes beside `found` (`balanced`'s detections); `ends` and `asks` are where
    sentences and questions end (speaker, end time of the word before the mark)."""
    answered = whole_answers(words, ends, asks, ask, broad_ask)
    named = cued_names(words, ends)
    taken = answered + named + long_numbers(words) + spoken_numbers(words) + domains(words, ends) + \
        letter_runs(words) + read_backs(words, [*found, *answered], kinds, doubtful=True) + names_again(words, found) + \
        spelled_as_words(words) + read_back_whole(words, ends) + suspect_runs(words)
    return taken + neighbours(words, [*found, *taken])
