"""Enrolling a person by voice: their recordings checked, decoded (the first minutes of each) and turned
into voiceprints (`stages.speakers.identify`), then stored under their name (`store.registered.speakers`)."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from speechproc import errors as E
from speechproc import media
from speechproc.batch.planning import unreadable
from speechproc.engines.models import default_threads
from speechproc.paths import shown
from speechproc.stages.speakers import enrollment_voices
from speechproc.store.database import Catalog
from speechproc.store.media_items import using
from speechproc.store.registered import speakers

ENROLL_FIRST_S = 20 * 60  # of each recording enrolled, only the first this many seconds are read


def enroll_speaker(name: str, files: list[str | Path], role: str | None = None, replace: bool = False,
                   catalog: Catalog | None = None) -> speakers.Enrolled:
    """A person's voiceprint from recordings of them alone, stored under `name` (added to their earlier
    recordings, or in their place with `replace`); what `speakers.enroll` stored. ConfigurationError for a
    bad name or role, a file that is not a readable recording, one enrolled under another name, or too
    little speech in all."""
    name, role = speakers.check_name(name), speakers.check_role(role)
    paths = recordings_of(files)
    hashes = [media.file_hash(path) for path in paths]
    with using(catalog) as cat:  # refused before any audio is decoded
        speakers.refuse_enrolled_elsewhere(cat, name, hashes)
    voices = enrollment_voices([_decoded(path) for path in paths], [shown(p) for p in paths],
                                        threads=default_threads())
    with using(catalog) as cat:
        speakers.refuse_voice_of_another(cat, name, [(shown(p), v.embedding) for p, v in zip(paths, voices)])
    found = [(sha, v.speech_s, v.embedding) for sha, v in zip(hashes, voices)]
    return speakers.enroll(name, role, found, replace, catalog)


def recordings_of(files: list[str | Path]) -> list[Path]:
    """The recordings named, each once, resolved; ConfigurationError for none, too many, or one that is not
    a readable file."""
    paths = list(dict.fromkeys(Path(f).resolve() for f in files))
    if not paths:
        raise E.ConfigurationError(E.INVALID_VALUE, "name at least one recording of the person")
    for path in paths:
        problem = unreadable(path)
        if problem is not None:
            raise E.ConfigurationError(E.INVALID_VALUE, problem.message)
        if not path.is_file():
            raise E.ConfigurationError(E.INVALID_VALUE, f"{shown(path)}: not a file (name recordings of the person)")
    if len(paths) > speakers.MAX_EXEMPLARS:
        raise E.ConfigurationError(E.INVALID_VALUE, f"a person has at most {speakers.MAX_EXEMPLARS} enrolled recordings")
    return paths


def _decoded(path: Path) -> np.ndarray:
    """The first `ENROLL_FIRST_S` seconds of a recording, its channels mixed down."""
    try:
        return media.decode(path, first_s=ENROLL_FIRST_S).samples.mean(axis=0)
    except E.SpeechprocError as exc:  # a file that is no recording is a mistake in the command: exit 2
        raise E.ConfigurationError(exc.code, exc.message) from None
