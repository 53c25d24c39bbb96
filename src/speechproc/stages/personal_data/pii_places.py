"""Addresses as a whole, for the PII detector (`stages/personal_data/pii.py`): street, unit, city, state or region, ZIP or
postcode and country, said in any order and however a recogniser wrote them.

An address is first found by what anchors it: a house number before a street word ("218 Maple Street"),
what follows address talk ("I live at", "the new place is", "I'm in"), a state, province or county after a
place name ("Portland, Oregon"), a postcode ("LS6 2AB", "M5V 2T6"), or a country or region said near other
address talk. Each stretch found then grows, in the same speaker's breath, over the words an address is made
of (capitalised words, numbers, unit words, region and country names, postcode pieces), across at most
MAX_GARBLED words the recogniser garbled between them ("1246 maples treat apartment 19c Austin Texas"), so
that no part of it is left beside the part found.
"""
from __future__ import annotations

import re
from collections.abc import Sequence

from speechproc.conversation import DetectedClass, Token
from speechproc.stages.personal_data.numbers import digit_runs
from speechproc.stages.personal_data.pii_talk import DIGIT_HEARD, MAX_ANSWER_WORDS, NEW_SENTENCE, until_new_sentence
from speechproc.stages.personal_data.pii_words import (
    STREET,
    Ends,
    capitalised,
    detection,
    digits_of,
    number_word,
    plain,
    positions,
    words_span,
)

US_STATES = ("alabama alaska arizona arkansas california colorado connecticut delaware florida georgia hawaii idaho "
             "illinois indiana iowa kansas kentucky louisiana maine maryland massachusetts michigan minnesota "
             "mississippi missouri montana nebraska nevada ohio oklahoma oregon pennsylvania tennessee texas utah "
             "vermont virginia washington wisconsin wyoming").split()
TWO_WORD_REGIONS = ("new hampshire", "new jersey", "new mexico", "new york", "north carolina", "north dakota",
                    "rhode island", "south carolina", "south dakota", "west virginia", "district of columbia",
                    "british columbia", "new brunswick", "nova scotia", "prince edward", "west yorkshire",
                    "south yorkshire", "north yorkshire", "east sussex", "west sussex", "west midlands",
                    "greater london", "greater manchester", "northern ireland", "new south", "south australia",
                    "western australia", "united states", "united kingdom", "new zealand", "south africa")
REGIONS = frozenset(US_STATES + (
    "alberta manitoba ontario quebec saskatchewan newfoundland yukon nunavut "  # Canada
    "avon berkshire cornwall cumbria derbyshire devon dorset durham essex gloucestershire hampshire kent "
    "lancashire leicestershire lincolnshire merseyside norfolk northumberland nottinghamshire oxfordshire "
    "shropshire somerset staffordshire suffolk surrey warwickshire wiltshire worcestershire yorkshire "
    "scotland wales england queensland victoria tasmania").split())
COUNTRIES = frozenset(("usa us america uk britain canada mexico ireland australia germany france spain italy india "
                       "china japan brazil netherlands portugal poland sweden norway denmark finland belgium "
                       "switzerland austria nigeria kenya pakistan philippines singapore").split())
STATE_CODES = frozenset(("al ak az ar ca co ct de fl ga hi id il in ia ks ky la me md ma mi mn ms mo mt ne nv nh nj "
                         "nm ny nc nd oh ok or pa ri sc sd tn tx ut vt va wa wv wi wy dc").split())
UNIT = frozenset("apartment apt unit suite ste flat floor fl building bldg room box po p.o number no #".split())
CONNECTORS = frozenset("in at on , of and the".split())  # between an address's parts; never at its ends
POSTCODE = re.compile(r"^([a-z]{1,2}\d[a-z\d]?(\d[a-z]{2})?|\d[a-z]{2}|[a-z]\d[a-z](\d[a-z]\d)?|\d[a-z]\d|"
                      r"\d{5}(-\d{4})?)$")  # UK (LS6 2AB), Canada (M5V 2T6), US ZIP, in one piece or two
PIECE = re.compile(r"^[a-z]{0,2}\d[a-z\d]{0,3}$|^[b-hj-z]$")  # a piece of a postcode heard apart: "M5v", "t6", "L"
PRONOUNS = frozenset("i i'm i'll i've i'd it's that's there's here's we're you're they're he's she's we you they he "
                     "she".split())  # capitalised, never an address's
ADDRESS_TALK = re.compile(r"\b(address|live|living|lives|moved|moving|ship|mail|send|deliver\w*|located|zip|"
                          r"post ?code|city|town|street|state|province|county|country|place)\b")
ADDRESS_CUE = re.compile(r"\b(live (at|a|on|in)|living (at|on|in)|lives (at|on|in)|address is|ship (it )?to|"
                         r"mail (it )?to|send (it )?to|moved to|moving to|located (at|in)|i'm at|we're at|i'm in|"
                         r"we're in|place (is|in)|new address( is)?|(zip|post) ?code (is|again is|again in|is in))$")
MAX_GARBLED = 3  # words between two parts of an address that are none, kept when a strong part follows them
MAX_ADDRESS_WORDS = 30
CUE_GARBLED = 5  # after an address cue, more garbled words between two parts ("8,400 maybe will only in 10th")
WEAK_CUE = re.compile(r"(i'm|we're) (in|at)$")  # also "I'm in a meeting", "I'm at 40 percent"
POSTCODE_TALK = re.compile(r"\b(post|postal|zip|code)")  # "post code", "postcard", "post called", "zip"
GAP_MS = 1500  # a longer pause ends an address
ANSWER_GAP_MS = 2000
TALK_MS = 60000  # a country or lone region is an address's within this long of address talk


def _region_at(words: Sequence[Token], i: int) -> int:
    """How many words of a region or country name start at words[i] (0: none); a name's last word is
    capitalised ("us" is no country, "leads west Yorkshire" is a county)."""
    first = plain(words[i])
    if i + 1 < len(words) and f"{first} {plain(words[i + 1])}" in TWO_WORD_REGIONS and _capital(words[i + 1]):
        return 2
    return 1 if (first in REGIONS or first in COUNTRIES) and _capital(words[i]) else 0


def _capital(word: Token) -> bool:
    return word.w.strip(".,?!;:\"'()")[:1].isupper()


def _street(words: Sequence[Token], k: int) -> bool:
    """A street word that names a street ("Hill Drive", not "by the way", "a long way")."""
    return plain(words[k]) in STREET and not (k and plain(words[k - 1]) in NOT_A_STREET_NAME)


def _part(words: Sequence[Token], k: int) -> bool:
    """Whether words[k] may be part of an address: a number, a capitalised word, a street, unit, region or
    country word, a state's code or a postcode's piece."""
    text = plain(words[k]).replace(",", "").replace(".", "")
    if text in PRONOUNS:
        return False
    return (number_word(words[k]) or capitalised(words[k]) or _street(words, k) or text in UNIT or
            _region_at(words, k) > 0 or text in STATE_CODES and words[k].w.strip(".,")[:1].isupper() or
            POSTCODE.match(text) is not None or PIECE.match(text) is not None)


def _ends_talk(words: Sequence[Token], j: int) -> bool:
    """Whether words[j] starts other talk ("also", "thank"), and is no digit heard as a word ("I'm seven")."""
    return plain(words[j]) in NEW_SENTENCE and not (plain(words[j]) in DIGIT_HEARD and j + 1 < len(words) and
                                                    number_word(words[j + 1]))


def _same_breath(words: Sequence[Token], a: int, b: int) -> bool:
    """Whether words[a] and words[b] (a < b, neighbours) are said by one speaker without a long pause."""
    return words[a].speaker == words[b].speaker and words[b].s - words[a].e < GAP_MS


def _strong(words: Sequence[Token], k: int) -> bool:
    """A part that alone says an address goes on: a region or country, a street or unit word, a postcode, a
    number of two digits or more, or a number word with another within two words either side ("seven to one")."""
    text = plain(words[k]).replace(",", "").replace(".", "")
    return (_region_at(words, k) > 0 or _street(words, k) or text in UNIT or POSTCODE.match(text) is not None or
            sum(c.isdigit() for c in text) >= 2 or
            number_word(words[k]) and any(number_word(w) for w in [*words[max(0, k - 2):k], *words[k + 1:k + 3]]))


def _placeish(words: Sequence[Token], k: int) -> bool:
    """A word that names a place: a region or country, a street or unit word, a postcode with letters, or a
    capitalised word that is no pronoun ("I'm in Tampa", not "I'm in a meeting until 3")."""
    text = plain(words[k]).replace(",", "").replace(".", "")
    return (_region_at(words, k) > 0 or _street(words, k) or text in UNIT or
            POSTCODE.match(text) is not None and any(c.isalpha() for c in text) or
            capitalised(words[k]) and text not in PRONOUNS)


def _step(words: Sequence[Token], frm: int, to: int) -> bool:
    """Whether talk goes on from words[frm] to words[to] (neighbours, either way) in one breath of one speaker,
    no other talk starting."""
    a, b = min(frm, to), max(frm, to)
    return _same_breath(words, a, b) and not _ends_talk(words, b if to > frm else a)


def _next(words: Sequence[Token], edge: int, direction: int, ends: Ends) -> int | None:
    """The next part of an address beyond words[edge]: the word beside it or after connecting words ("in
    Portland"), or across up to MAX_GARBLED words the recogniser garbled, a strong part; across a sentence
    end, only a strong part."""
    k, crossed = edge, False
    for _ in range(MAX_GARBLED + 1):
        k += direction
        if not 0 <= k < len(words) or not _step(words, k - direction, k):
            return None
        crossed = crossed or (words[min(k, k - direction)].speaker, words[min(k, k - direction)].e) in ends
        if _part(words, k) and (not crossed and all(plain(words[j]) in CONNECTORS for j in range(edge + direction, k,
                                                                                          direction))
                                or _strong(words, k)):
            return k
    return None


def grown(words: Sequence[Token], start: int, end: int, ends: Ends = frozenset()) -> tuple[int, int]:
    """The stretch words[start..end] grown both ways over the parts of an address (see the module), to
    MAX_ADDRESS_WORDS at most."""
    while end - start + 1 < MAX_ADDRESS_WORDS and (ahead := _next(words, end, 1, ends)) is not None:
        end = ahead
    while end - start + 1 < MAX_ADDRESS_WORDS and (behind := _next(words, start, -1, ends)) is not None:
        start = behind
    while start < end and (not _part(words, start) or plain(words[start]) in CONNECTORS | STREET):
        start += 1  # "the new place is 1246 ...": an address starts with no street word
    while end > start and (not _part(words, end) or plain(words[end]) in CONNECTORS):
        end -= 1
    return start, end


def _cued(words: Sequence[Token], ends: Ends) -> list[tuple[int, int]]:
    """What follows "I live at", "the new place is", "I'm in" in the same turn, however it was heard: to a
    pause, to a sentence that starts other talk, or to the last part of an address before more than
    CUE_GARBLED words that are none (or before any, unless a strong part follows them). After a cue that also
    starts other talk ("I'm in a meeting"), only when a word in it names a place."""
    out = []
    for i in range(1, len(words)):
        before = " ".join(plain(w) for w in words[max(0, i - 4):i] if w.speaker == words[i].speaker)
        cue = ADDRESS_CUE.search(before)
        if not cue:
            continue
        turn = [k for k in range(i, min(len(words), i + MAX_ANSWER_WORDS)) if words[k].speaker == words[i].speaker]
        end = next((n for n in range(1, len(turn)) if words[turn[n]].s - words[turn[n - 1]].e > ANSWER_GAP_MS),
                   len(turn))
        said = until_new_sentence([words[k] for k in turn[:end]], ends, "address")
        taken = turn[:len(said)]
        parts = [n for n, k in enumerate(taken) if _part(words, k)]
        last = next((parts[n] for n in range(len(parts) - 1) if parts[n + 1] - parts[n] > CUE_GARBLED + 1 or
                     not _strong(words, taken[parts[n + 1]]) and
                     any(plain(words[taken[j]]) not in CONNECTORS for j in range(parts[n] + 1, parts[n + 1]))),
                    parts[-1] if parts else None)
        weak = WEAK_CUE.search(cue.group(0)) is not None
        if last is not None and any(_placeish(words, k) if weak else _part(words, k) for k in taken[:last + 1]):
            out.append((taken[0], taken[last]))
    return out


NOT_A_STREET_NAME = frozenset("the a an by this that any some no every which one other same long".split())  # "by the way"


def _streets(words: Sequence[Token]) -> list[tuple[int, int]]:
    """A house number followed within four words by a street word ("218 Maple Street")."""
    out = []
    for i in range(len(words)):
        if number_word(words[i]):
            street = next((j for j in range(i + 1, min(len(words), i + 6))
                           if plain(words[j]) in STREET and words[j].speaker == words[i].speaker and
                           plain(words[j - 1]) not in NOT_A_STREET_NAME), None)
            if street is not None:
                out.append((i, street))
    return out


def _places(words: Sequence[Token]) -> list[tuple[int, int]]:
    """A region after a place name ("Portland, Oregon"), a postcode, and a country or lone region said within
    TALK_MS of address talk."""
    out = []
    for i in range(len(words)):
        size = _region_at(words, i)
        text = plain(words[i]).replace(" ", "")
        if size and (i and capitalised(words[i - 1]) and _same_breath(words, i - 1, i) or _talk_near(words, i)):
            out.append((i, i + size - 1))
        elif POSTCODE.match(text) and not text.isdigit() and any(c.isalpha() for c in text) and len(text) >= 5:
            out.append((i, i))
    return out


def _talk_near(words: Sequence[Token], i: int) -> bool:
    j = i
    while j > 0 and words[i].s - words[j - 1].s <= TALK_MS:
        j -= 1
    return ADDRESS_TALK.search(" ".join(plain(w) for w in words[j:i])) is not None


def addresses(words: Sequence[Token], ends: Ends = frozenset(), more: Sequence[DetectedClass] = ()) -> list[DetectedClass]:
    """Every address said, each grown to the whole of it; `more` holds address detections found otherwise
    (the answer to an address question), grown the same way. An anchor inside an address already grown
    adds nothing."""
    stretches = sorted(_cued(words, ends) + _streets(words) + _places(words) + positions(words, more))
    out = []
    reach = -1  # the last word of the addresses grown so far
    for start, end in stretches:
        if end <= reach:
            continue
        start, end = grown(words, start, end, ends)
        reach = max(reach, end)
        out.append(detection("address", [words_span(words[start:end + 1])]))
    return out + _said_again(words, out)


def _said_again(words: Sequence[Token], found: Sequence[DetectedClass]) -> list[DetectedClass]:
    """A ZIP code or postcode's digits said again by the same speaker within TALK_MS after their address ("the
    post code again is three three six zero two", however "post code" was heard): digits alike those of the
    address, or after postcode talk."""
    said: list[tuple[str, int, str]] = []  # speaker, end, the address's digits
    for first, last in positions(words, found):
        digits = "".join(c for w in words[first:last + 1] for c in digits_of(w))
        said.append((words[first].speaker, words[last].e, digits))
    out = []
    position = {id(w): k for k, w in enumerate(words)}
    for run in digit_runs(words):
        if not 4 <= len(run.digits) <= 9:
            continue
        k = position[id(run.words[0])]
        cued = POSTCODE_TALK.search(" ".join(plain(w) for w in words[max(0, k - 4):k])) is not None
        if any(sp == run.speaker and 0 < run.s - e <= TALK_MS and (cued or run.digits in digits)
               for sp, e, digits in said):
            out.append(detection("address", [(run.speaker, run.s, run.e)]))
    return out
