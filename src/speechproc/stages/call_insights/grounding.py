"""What the insights model reads and what it may say: the call as numbered lines (`lines_of`), the spoken
instructions (`spoken_instructions`) left out of them, and the names and numbers of an answer that the call
does not hold (`ungrounded`), numbers matched however they are written, and words of a script the call is not
written in ("the客服" in an English call)."""
from __future__ import annotations

import re
from dataclasses import dataclass

from speechproc.conversation import PUNC, Conversation, Token
from speechproc.stages.call_insights.spoken_instructions import instruction_start

INSTRUCTION_LEFT_OUT = "(words addressed to an AI system, left out)"


@dataclass(frozen=True)
class Line:
    """One turn as the model reads it: its number (from 1), speaker, times and text. A turn that speaks to
    the transcript's reader (`spoken_instructions`) keeps as `text` only its words before that; the rest is
    never read."""

    number: int
    speaker: str
    s: int
    e: int
    text: str
    instruction: bool  # from the end of `text` on, the turn addresses the reader of the transcript

    def render(self) -> str:
        """The line as the model reads it: "12 Caller: ..." (no brackets round the number: each costs the model a
        token, a tenth of a long call's prompt)."""
        if self.instruction:  # what it says is never read: it cannot steer what the model answers
            return f"{self.number} {self.speaker}: {self.text + ' ' if self.text else ''}{INSTRUCTION_LEFT_OUT}"
        return f"{self.number} {self.speaker}: {self.text}"


def lines_of(conv: Conversation) -> list[Line]:
    """The call's turns (the words as published, redacted where a redactor ran) as numbered lines, each cut
    where words addressed to the transcript's reader begin."""
    out: list[Line] = []
    for turn in conv.turns:
        tokens = [w for w in turn.words if w.m in (None, PUNC)]
        words = [w for w in tokens if w.m is None]
        if not words:
            continue
        text = _text(tokens)
        start = instruction_start(text)
        kept = text if start is None else text[:start].rstrip()
        out.append(Line(len(out) + 1, turn.speaker, words[0].s, max(w.e for w in words), kept, start is not None))
    return out


def _text(tokens: list[Token]) -> str:
    return "".join(w.w if w.m == PUNC or i == 0 else " " + w.w for i, w in enumerate(tokens))



_NUMBER_WORDS = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
                 "sixteen seventeen eighteen nineteen").split()
_TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()
_NOT_NAMES = frozenset(("I", "Agent", "Caller", "The", "A", "An", "They", "He", "She", "It", "We", "You", "This",
                        "That", "Their", "His", "Her", "Its", "Our", "Your", "AI", "OK", "Okay", "No", "Yes"))


def spoken(n: int) -> str:
    """A whole number as it is said ("sixty two", "four hundred and five"), up to the billions."""
    if n < 20:
        return _NUMBER_WORDS[n]
    if n < 100:
        return _TENS[n // 10 - 2] + ("" if n % 10 == 0 else " " + _NUMBER_WORDS[n % 10])
    for size, name in ((10**9, "billion"), (10**6, "million"), (1000, "thousand"), (100, "hundred")):
        if n >= size:
            head, rest = divmod(n, size)
            return spoken(head) + " " + name + ("" if rest == 0 else (" and " if rest < 100 else " ") + spoken(rest))
    return str(n)


_ORDINAL_ENDS = {"one": "first", "two": "second", "three": "third", "five": "fifth", "eight": "eighth",
                 "nine": "ninth", "twelve": "twelfth"}


def ordinal(n: int) -> str:
    """A whole number's ordinal as it is said ("twenty first", "eighteenth", "one hundredth")."""
    *head, last = spoken(n).split()
    last = _ORDINAL_ENDS.get(last) or (last[:-1] + "ieth" if last.endswith("y") else last + "th")
    return " ".join([*head, last])


def normal(text: str) -> str:
    """Lower-case words and digits between single spaces, with a space at each end (for finding runs)."""
    return " " + re.sub(r"[^a-z0-9]+", " ", text.lower().replace("-", " ")).strip() + " "


_SCALES = {"hundred": 100, "thousand": 1000, "million": 10**6, "billion": 10**9}
_LARGEST_SAID = 10**12  # number words worth more are matched by their words alone
_NUMBER_WORD = "|".join([*_NUMBER_WORDS, *_TENS, *_SCALES])
_NUMBER_RUN = re.compile(rf"\b(?:{_NUMBER_WORD})(?:[\s-]+(?:and[\s-]+)?(?:{_NUMBER_WORD}))*\b", re.IGNORECASE)


def _value(words: list[str]) -> int | None:
    """The value of number words ("five hundred and two" -> 502); None for a run that is no one number
    ("four one two", digits said one by one, has none)."""
    total = current = 0
    last = None
    for word in words:
        if word == "and":
            continue
        if word in _SCALES:
            current = max(current, 1) * _SCALES[word]
            if _SCALES[word] > 100:
                total, current = total + current, 0
        elif word in _TENS or word in _NUMBER_WORDS:
            small = _NUMBER_WORDS.index(word) if word in _NUMBER_WORDS else 10 * (_TENS.index(word) + 2)
            if last is not None and last not in _SCALES and not (last in _TENS and small < 10):
                return None
            current += small
        last = word
    return total + current


def _number_runs(text: str) -> list[list[str]]:
    """The numbers written as words in `text`, each as its words: "and" joins only after a scale ("five hundred
    and two"), and a lone "one" ("the one from the third") is no number."""
    runs = []
    for match in _NUMBER_RUN.finditer(text):
        run: list[str] = []
        words = match.group(0).lower().replace("-", " ").split()
        for word in words:
            if word == "and" and not (run and run[-1] in _SCALES):
                runs.append(run)
                run = []
            elif word != "and":
                run.append(word)
        runs.append(run)
    return [run for run in runs if run and run != ["one"]]


# Letters of no Latin script: the bundled model at times ends an English sentence in Chinese words.
OTHER_SCRIPT = re.compile(r"[^\W\d_a-zA-Z\u00C0-\u024F\u1E00-\u1EFF]+")


def ungrounded(text: str, transcript: str) -> list[str]:
    """The names and numbers of `text` that do not occur in `transcript`: numbers (as digits or as words,
    either written either way in the transcript), capitalised words that are not at the start of a
    sentence, and, when the transcript is written in Latin letters alone, every run of other letters."""
    said = normal(transcript)
    missing = [] if OTHER_SCRIPT.search(transcript) else OTHER_SCRIPT.findall(text)
    # a number with the letters it is written with ("18th", "10am", "Flexi12"): as written, or the number alone
    for token, digits, suffix in re.findall(r"\b([a-z]*(\d+(?:[.,]\d+)?)([a-z]*))", text, re.IGNORECASE):
        value = digits.replace(",", "")
        plain = value.split(".")[0]
        forms = [f" {token.lower()} ", f" {value} ", f" {plain} "]
        if plain.isdigit() and len(plain) <= 9:
            forms.append(normal(spoken(int(plain))))
            forms.append(" " + " ".join(_NUMBER_WORDS[int(d)] for d in plain) + " ")  # said digit by digit
            if suffix.lower() in ("st", "nd", "rd", "th"):
                forms.append(normal(ordinal(int(plain))))
        if not any(form in said for form in forms):
            missing.append(token)
    for run in _number_runs(text):  # a number written as words: said so (with or without "and"), or as digits
        value = _value(run)
        if value is not None and value >= _LARGEST_SAID:  # "hundred hundred ...": no number anyone says
            value = None
        forms = [normal(" ".join(run))] + ([] if value is None else [f" {value} ", normal(spoken(value))])
        if not any(form in said for form in forms):
            missing.append(" ".join(run))
    for match in re.finditer(r"(?<![.!?]\s)(?<!^)\b([A-Z][a-z]+(?:[-'][A-Z]?[a-z]+)*)\b", text.strip()):
        word = match.group(1)
        if word not in _NOT_NAMES and normal(word) not in said:
            missing.append(word)
    return list(dict.fromkeys(missing))
