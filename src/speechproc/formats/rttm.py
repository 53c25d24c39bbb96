"""RTTM: who spoke when, as the NIST Rich Transcription Time Marked lines that diarization scorers read (dscore,
pyannote.metrics, md-eval).

One `SPEAKER` line per stretch of a speaker's voice activity (the transcript's `voiceActivity`: each speaker's
words merged across short pauses, and where they talk over another when overlapped speech was found):

    SPEAKER <file> 1 <start s> <duration s> <NA> <NA> <speaker> <NA> <NA>

sorted by start, then speaker; times in seconds with three decimals. RTTM fields are separated by white
space, so the file id and the speaker are written as one field each, reversibly: every character but ASCII
letters, digits and `.`, `_`, `-` is percent-encoded from its UTF-8 bytes (`Speaker 1` -> `Speaker%201`,
`Zoë` -> `Zo%C3%AB`). A recording without speech gives an empty file.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from speechproc.formats import JSON_SUFFIX, RTTM_SUFFIX
from speechproc.results import MediaItem

CONTENT_TYPE = "text/plain"
_SAFE = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")


def field(text: str) -> str:
    """`text` as one RTTM field: percent-encoded but for ASCII letters, digits and `._-` (never empty)."""
    encoded = "".join(chr(b) if b in _SAFE else f"%{b:02X}" for b in _utf8(text))
    return encoded or "%00"


def _utf8(text: str) -> bytes:
    """The UTF-8 bytes of `text`; a file name's undecodable bytes (os.fsdecode's escapes) as they were."""
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass")


def render(file_id: str, activity: Mapping[str, Sequence[tuple[int, int]]]) -> str:
    """The RTTM of one recording: `activity` holds each speaker's stretches (start ms, end ms)."""
    spans = sorted((s, e, speaker) for speaker, stretches in activity.items() for s, e in stretches if e > s)
    uri = field(file_id)
    return "".join(f"SPEAKER {uri} 1 {s / 1000:.3f} {(e - s) / 1000:.3f} <NA> <NA> {field(speaker)} <NA> <NA>\n"
                   for s, e, speaker in spans)


def activity_of(item: MediaItem) -> dict[str, list[tuple[int, int]]]:
    """Each speaker's voice activity (ms) in a v3 media item: its transcript's `voiceActivity`."""
    out: dict[str, list[tuple[int, int]]] = {}
    for entry in item.get("transcript", {}).get("voiceActivity", []):
        spans = out.setdefault(str(entry.get("speakerName", "")), [])
        spans += [(int(o["s"]), int(o["e"])) for o in _occurrences(entry.get("occurrences", []))]
    return out


def _occurrences(found: Iterable) -> Iterable[Mapping]:
    return (o for o in found if isinstance(o, Mapping) and isinstance(o.get("s"), int) and isinstance(o.get("e"), int))


def of_item(item: MediaItem, file_id: str) -> str:
    """The RTTM of a stored media item, its lines naming the recording `file_id`."""
    return render(file_id, activity_of(item))


def place_of(json_path: Path, fallback: str) -> tuple[Path, str]:
    """(where an item's RTTM goes, its file id): beside its .v3.json, named as its outputs are."""
    file_id = file_id_of(json_path.name, fallback)
    return json_path.with_name(file_id + RTTM_SUFFIX), file_id


def file_id_of(json_name: str, fallback: str) -> str:
    """The file id of an item's RTTM: the name its outputs share (`call` of `call.v3.json` or of the encrypted
    `call.v3.json.gpg`), else `fallback`."""
    json_name = json_name.removesuffix(".gpg")
    return json_name[: -len(JSON_SUFFIX)] if json_name.endswith(JSON_SUFFIX) and len(json_name) > len(JSON_SUFFIX) \
        else fallback
