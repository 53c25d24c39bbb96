"""Reading speechproc's results back: `load` a `.v3.json`, its speaker `turns`, and `words_frame` and
`turns_frame`, the transcript as pandas DataFrames (pandas is imported only when a frame is made); and
`readable`, a copy of a hand-made item whose parts have the shapes its readers rely on."""
from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeAlias, TypeGuard, TypeVar, cast

from speechproc.results import PUNCTUATION_FLAG, TURN_FLAG, MediaItem, Turn, Word

if TYPE_CHECKING:
    from pandas import DataFrame


def load(path: str | os.PathLike[str]) -> MediaItem:
    """A `.v3.json` file as a media item. Raise OSError when it cannot be read, ValueError when it is not
    JSON or not a v3 media item (an object with a mediaId)."""
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    if not isinstance(data, dict) or not isinstance(data.get("mediaId"), str):
        raise ValueError(f"{os.fspath(path)} is not a v3 media item (a JSON object with a mediaId)")
    return cast(MediaItem, data)


def is_number(value: Any) -> TypeGuard[float]:
    """A finite int or float (not a bool)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


Shape = TypeVar("Shape", bound=Mapping[str, object])  # a JSON object's shape: a TypedDict of this module, say


def as_dict(value: Shape | None) -> Shape:
    """The value when it is a JSON object, else an empty one (a hand-made item may hold anything). The
    shape is what the value should be: read it with `.get`, as even a JSON object may lack any key."""
    return value if isinstance(value, dict) else cast(Shape, {})


def dicts(value: Sequence[Shape] | None) -> list[Shape]:
    """The objects of a JSON array (anything else in it, or a value that is no array, is left out), of the
    shape its entries should have (read them with `.get`: a hand-made one may lack any key)."""
    return cast(list[Shape], [x for x in value if isinstance(x, dict)]) if isinstance(value, list) else []


# The parts of a v3 media item that its readers walk into, by what each should hold: an object (a dict of
# its own parts), an array of objects (a list of one such dict) or a finite number (float).
Part: TypeAlias = "dict[str, Part] | list[dict[str, Part]] | type[float]"
_SPAN: dict[str, Part] = {"s": float, "e": float}
_MENTIONS: Part = [{"occurrences": [_SPAN]}]  # a keyword's mentions, a category's matches
ITEM_PARTS: dict[str, Part] = {
    "length": float, "metadata": {}, "errors": [{}], "streams": [{}],
    "transcript": {"words": [{"p": float, "s": float, "e": float}], "voiceActivity": [{"occurrences": [_SPAN]}]},
    "speakerSentiments": [{"sentimentValues": [{"s": float, "e": float, "v": float}]}],
    "metrics": [{"metricValues": [{}]}],
    "knowledge": {"keywords": [{"mentions": _MENTIONS}], "topics": [{"keywords": [{}]}]},
    "categories": [{"categoryMatches": _MENTIONS}],
    "spotting": {"groups": [{"spottedKeywords": [{"mentions": _MENTIONS}]}]},
    "conversation": {"speakerVerbNounPairs": [{"verbNounPairs": [{"s": float}]}]},
    "prediction": {"detectors": [{}], "classifiers": [{}]},
    "insights": {"actionItems": [{"s": float}], "answers": [{"s": float}], "model": {}},
}


def readable(item: MediaItem) -> MediaItem:
    """A copy of a media item (a JSON object: TypeError otherwise) whose parts in ITEM_PARTS hold what they
    should, so that a reader needs no further checks: an object part that is none is an empty object, an
    array part that is none an empty array, an array's entries that are no objects are left out, and a
    number part that is not finite (a bool, NaN, text) is left out. Everything else is as it was, in its
    order; a part that is missing stays missing, so read them with `.get(key, default)`."""
    if not isinstance(item, dict):
        raise TypeError(f"a media item is a JSON object, not {type(item).__name__}")
    return cast(MediaItem, _readable(item, ITEM_PARTS))


def _readable(value: object, parts: dict[str, Part]) -> dict[str, object]:
    if not isinstance(value, dict):
        return {}
    out: dict[str, object] = {}
    for key, part in value.items():
        shape = parts.get(key)
        if shape is None:
            out[key] = part
        elif isinstance(shape, list):
            out[key] = [_readable(x, shape[0]) for x in part if isinstance(x, dict)] if isinstance(part, list) else []
        elif isinstance(shape, dict):
            out[key] = _readable(part, shape)
        elif is_number(part):
            out[key] = part
    return out


def _flags(word: Word) -> list[str]:
    return word.get("m", "").split("|") if word.get("m") else []


def is_turn_marker(word: Word) -> bool:
    return TURN_FLAG in _flags(word)


def text_of(tokens: list[Word]) -> str:
    """Tokens as readable text: words separated by spaces, punctuation attached to the word before."""
    return "".join(w["w"] if PUNCTUATION_FLAG in _flags(w) or not i else " " + w["w"] for i, w in enumerate(tokens))


def turns(item: MediaItem) -> list[Turn]:
    """The transcript's speaker turns in order (none when the item has no transcript). Tokens before the
    first turn marker, which speechproc never writes, form a turn of their own with no speaker."""
    out: list[Turn] = []
    for word in item.get("transcript", {}).get("words", []):
        if is_turn_marker(word):
            out.append({"turn": len(out), "speaker": word["w"], "s": word["s"], "e": word["e"], "words": []})
            continue
        if not out:
            out.append({"turn": 0, "speaker": "", "s": word["s"], "e": word["e"], "words": []})
        out[-1]["words"].append(word)
    return out


def _pandas() -> Any:
    try:
        import pandas
    except ImportError as exc:
        raise ImportError("speechproc.results needs pandas for DataFrames: pip install pandas "
                          "(it comes with speechproc's dev extra)") from exc
    return pandas


WORD_COLUMNS = ("p", "turn", "speaker", "s", "e", "w", "c", "m", "v")
TURN_COLUMNS = ("turn", "speaker", "s", "e", "words", "text")


def words_frame(item: MediaItem) -> DataFrame:
    """The transcript's tokens, one row each in transcript order, turn markers left out (see `turns_frame`):
    p, turn (its index), speaker, s, e (ms), w, c (confidence), m (None for a word, "punc" for punctuation)
    and v (relative volume, with voiceFeatures; else NaN). A word's `frq` is left out."""
    pandas = _pandas()
    rows = [{"p": w["p"], "turn": t["turn"], "speaker": t["speaker"], "s": w["s"], "e": w["e"], "w": w["w"],
             "c": w["c"], "m": w.get("m"), "v": w.get("v")} for t in turns(item) for w in t["words"]]
    return pandas.DataFrame(rows, columns=list(WORD_COLUMNS))


def turns_frame(item: MediaItem) -> DataFrame:
    """The transcript's speaker turns, one row each in order: turn (index), speaker, s, e (ms), words (how
    many words proper, punctuation left out) and text."""
    pandas = _pandas()
    rows = [{"turn": t["turn"], "speaker": t["speaker"], "s": t["s"], "e": t["e"],
             "words": sum(1 for w in t["words"] if not _flags(w)), "text": text_of(t["words"])} for t in turns(item)]
    return pandas.DataFrame(rows, columns=list(TURN_COLUMNS))
