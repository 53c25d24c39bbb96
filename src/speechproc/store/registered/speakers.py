"""Enrolled speakers: people's voiceprints in the catalog, to name them in every recording.

Each person is a definition of kind `speaker`, named by the person's name: their role (free text; `agent` or
`caller` decide the parties of a one-channel call's metrics) and their voiceprint, one exemplar per enrolled
recording (a unit CAM++ embedding, `stages.speakers.identify`) with the SHA-256 of that recording. A voiceprint is
biometric data: it is never shown (`get` and `list` give the name, role, exemplar count and seconds of
speech), never written to an output or a callback, and `delete` overwrites it in the database file
(SQLite's secure_delete, then a checkpoint that empties the write-ahead log).
"""
from __future__ import annotations

import base64
import hashlib
import re
import time
from collections.abc import Sequence
from typing import TypedDict, cast

import numpy as np

from speechproc import errors as E
from speechproc.formats import v3json
from speechproc.stages.options import SPEAKER_MATCH_THRESHOLD, EnrolledSpeaker
from speechproc.stages.speakers import similarities
from speechproc.store.database import Catalog
from speechproc.store.media_items import using

KIND = "speaker"
MAX_NAME = 64
MAX_ROLE = 32
MAX_EXEMPLARS = 50  # recordings per person (each is one exemplar)
_DEFAULT_NAME = re.compile(r"(?i)speaker\s*\d*")  # the names speechproc gives voices it cannot name


def check_name(name: str) -> str:
    """A person's name as given; ConfigurationError when it cannot be one (empty, too long, a control or
    format character, a tab included, a space at either end or two in a row, a separator)."""
    if any(not ch.isprintable() for ch in name) or any(ch in name for ch in "/\\") or name.strip() in (".", ".."):
        raise E.ConfigurationError(E.INVALID_VALUE, "a speaker's name may not hold control characters (a tab or a "
                                   "line break included), '/' or '\\'")
    text = name
    if not text.strip():
        raise E.ConfigurationError(E.INVALID_VALUE, "a speaker's name is empty")
    if text != text.strip() or "  " in text:
        raise E.ConfigurationError(E.INVALID_VALUE, f"a speaker's name may not begin or end with a space nor hold two "
                                   f"in a row ({text!r}); give it as it should be shown")
    if len(text) > MAX_NAME:
        raise E.ConfigurationError(E.INVALID_VALUE, f"a speaker's name has at most {MAX_NAME} characters")
    if _DEFAULT_NAME.fullmatch(text):
        raise E.ConfigurationError(E.INVALID_VALUE, f"{text!r} is the name speechproc gives a speaker it cannot name")
    return text


def check_role(role: str | None) -> str | None:
    """A role as given (None: none); ConfigurationError as for a name: 1-MAX_ROLE printable characters, no
    space at either end."""
    if role is None:
        return None
    if not role.strip() or len(role) > MAX_ROLE or any(not ch.isprintable() for ch in role) or role != role.strip():
        raise E.ConfigurationError(E.INVALID_VALUE, f"a role is 1-{MAX_ROLE} printable characters, with no space at "
                                   "either end")
    return role


class Exemplar(TypedDict):
    """One enrolled recording of a person: its SHA-256, seconds of speech and unit embedding (base64 of
    little-endian float32)."""

    sha256: str
    seconds: float
    embedding: str


class _PersonRequired(TypedDict):
    speakerName: str
    exemplars: list[Exemplar]


class Person(_PersonRequired, total=False):
    """A person as the catalog keeps them (the definition's body; an early one may lack a role)."""

    speakerRole: str | None


class StoredPerson(Person):
    """A person with the dates of their definition."""

    dateCreated: str
    dateModified: str


class ShownSpeaker(TypedDict):
    """A person as they are shown: never their voiceprint."""

    speakerName: str
    speakerRole: str | None
    recordings: int
    speechSeconds: float
    dateCreated: str | None
    dateModified: str | None


class Enrolled(ShownSpeaker):
    """What enrolling did: `voiceprint` is created, added, replaced or unchanged."""

    voiceprint: str


class SpeakerListing(TypedDict):
    speakers: list[ShownSpeaker]


def _stored(cat: Catalog, name: str) -> StoredPerson | None:
    return cast("StoredPerson | None", cat.definitions.get(KIND, name))


def _everyone(cat: Catalog) -> list[StoredPerson]:
    return cast("list[StoredPerson]", cat.definitions.list(KIND))


def _encoded(embedding: np.ndarray) -> str:
    return base64.b64encode(np.asarray(embedding, dtype="<f4").tobytes()).decode("ascii")


def _decoded(text: str) -> tuple[float, ...]:
    return tuple(float(x) for x in np.frombuffer(base64.b64decode(text), dtype="<f4"))


def _shown(person: Person, created: str | None, modified: str | None) -> ShownSpeaker:
    exemplars = person["exemplars"]
    return {"speakerName": person["speakerName"], "speakerRole": person.get("speakerRole"),
            "recordings": len(exemplars), "speechSeconds": round(sum(e["seconds"] for e in exemplars), 1),
            "dateCreated": created, "dateModified": modified}


def _shown_stored(stored: StoredPerson) -> ShownSpeaker:
    return _shown(stored, stored["dateCreated"], stored["dateModified"])


def enrolled_elsewhere(cat: Catalog, name: str, hashes: Sequence[str]) -> tuple[str, str] | None:
    """(another person, a recording's hash) when one of `hashes` is enrolled under another name."""
    wanted = set(hashes)
    for person in _everyone(cat):
        if person["speakerName"] == name:
            continue
        for exemplar in person["exemplars"]:
            if exemplar["sha256"] in wanted:
                return person["speakerName"], exemplar["sha256"]
    return None


def refuse_enrolled_elsewhere(cat: Catalog, name: str, hashes: Sequence[str]) -> None:
    """ConfigurationError when one of the recordings (`hashes`) is enrolled under another name."""
    other = enrolled_elsewhere(cat, name, hashes)
    if other is not None:
        raise E.ConfigurationError(E.INVALID_VALUE, f"that recording (sha256 {other[1][:12]}...) is enrolled as "
                                   f"{other[0]!r}: one recording is one person's voice")


def refuse_voice_of_another(cat: Catalog, name: str, voices: Sequence[tuple[str, np.ndarray]]) -> None:
    """ConfigurationError when a recording's voice ((what it is shown as, unit embedding) each) matches another
    enrolled person as closely as identification names a voice (SPEAKER_MATCH_THRESHOLD): the same recording
    re-encoded or louder, or the same person under another name. Enrolled, it would take that person's name
    in every recording, or neither would be named."""
    others = [p for p in resolve(cat) if p.name != name]
    if not others or not voices:
        return
    scores = similarities([v for _, v in voices], others)
    k, j = (int(x) for x in np.unravel_index(int(np.argmax(scores)), scores.shape))
    if scores[k, j] >= SPEAKER_MATCH_THRESHOLD:
        raise E.ConfigurationError(E.INVALID_VALUE, f"the voice in {voices[k][0]} is {others[j].name!r}'s, who is "
                                   f"enrolled (similarity {scores[k, j]:.2f}, at least {SPEAKER_MATCH_THRESHOLD} names a "
                                   "voice): one voice is one person; enroll each person from recordings of their own")


def enroll(name: str, role: str | None, voices: Sequence[tuple[str, float, np.ndarray]], replace: bool,
           catalog: Catalog | None = None) -> Enrolled:
    """Store `voices` ((recording SHA-256, seconds of speech, unit embedding) each) as `name`'s exemplars: added to
    what the person has, or in place of it with `replace`. A recording enrolled already for this person is not
    added twice. `{speakerName, speakerRole, recordings, speechSeconds, voiceprint: created|added|replaced|unchanged}`."""
    name, role = check_name(name), check_role(role)
    with using(catalog) as cat:
        refuse_enrolled_elsewhere(cat, name, [sha for sha, _, _ in voices])
        earlier = _stored(cat, name)
        kept = [] if earlier is None or replace else list(earlier["exemplars"])
        known = {e["sha256"] for e in kept}
        new: list[Exemplar] = []
        for sha, seconds, vector in voices:
            if sha not in known:  # a recording enrolled already, or given twice
                known.add(sha)
                new.append({"sha256": sha, "seconds": round(seconds, 2), "embedding": _encoded(vector)})
        if len(kept) + len(new) > MAX_EXEMPLARS:
            raise E.ConfigurationError(E.INVALID_VALUE, f"a person has at most {MAX_EXEMPLARS} enrolled recordings; "
                                       "use --replace to start again")
        action = "created" if earlier is None else "replaced" if replace else "added" if new else "unchanged"
        earlier_role = earlier.get("speakerRole") if earlier is not None else None
        body: Person = {"speakerName": name, "speakerRole": role if role is not None or earlier is None
                        else earlier_role, "exemplars": kept + new}  # a role stays until another is given
        if action != "unchanged" or body["speakerRole"] != earlier_role:
            cat.definitions.put(KIND, name, body, v3json.utc_now())
        now = _stored(cat, name)
        shown = _shown_stored(now) if now is not None else _shown(body, None, None)
    return {**shown, "voiceprint": action}


def list_speakers(catalog: Catalog | None = None) -> SpeakerListing:
    """Every enrolled person, without their voiceprints."""
    with using(catalog) as cat:
        return {"speakers": [_shown_stored(p) for p in _everyone(cat)]}


def get_speaker(name: str, catalog: Catalog | None = None) -> ShownSpeaker:
    """One enrolled person, without their voiceprint; NotFoundError when there is none of that name."""
    with using(catalog) as cat:
        found = _stored(cat, " ".join(name.split()))
    if found is None:
        raise E.NotFoundError(E.RESOURCE_NOT_FOUND, f"speaker {name!r} is not enrolled")
    return _shown_stored(found)


CHECKPOINT_TRIES = 50  # a tenth of a second apart: other processes reading the catalog finish their reads


def delete_speaker(name: str, catalog: Catalog | None = None) -> None:
    """Remove a person and overwrite their voiceprint in the database file (the catalog deletes securely),
    then empty the write-ahead log, where a copy of the page may still be; ConfigurationError (exit 2) when
    another process holds the log for longer than CHECKPOINT_TRIES allow: run the command again then."""
    with using(catalog) as cat:
        if not cat.definitions.delete(KIND, " ".join(name.split())):
            raise E.NotFoundError(E.RESOURCE_NOT_FOUND, f"speaker {name!r} is not enrolled")
        for _ in range(CHECKPOINT_TRIES):
            if cat.checkpoint():
                return
            time.sleep(0.1)
        raise E.ConfigurationError(E.INVALID_VALUE, f"speaker {name!r} was deleted, but another speechproc process "
                                   "is reading the catalog, so a copy may remain in its write-ahead log until that "
                                   "process ends: run the delete again then to make sure it is overwritten")


def digest(people: Sequence[EnrolledSpeaker]) -> str:
    """A short hash of the enrolled people (names, roles, voiceprints); empty when there are none."""
    if not people:
        return ""
    hashed = hashlib.sha256()
    for person in people:
        hashed.update(repr((person.name, person.role)).encode())
        hashed.update(np.asarray(person.exemplars, dtype="<f4").tobytes())
    return hashed.hexdigest()[:16]


def resolve(catalog: Catalog) -> tuple[EnrolledSpeaker, ...]:
    """Every enrolled person with their voiceprint, for naming the speakers of a run."""
    return tuple(EnrolledSpeaker(p["speakerName"], p.get("speakerRole"),
                                 tuple(_decoded(e["embedding"]) for e in p["exemplars"]))
                 for p in _everyone(catalog))
