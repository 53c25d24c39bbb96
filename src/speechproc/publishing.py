"""Publishing one media item: the redacted audio, the text formats and the v3 JSON (last), and its callbacks queued."""
from __future__ import annotations

import json
import os
import time
from contextlib import suppress
from pathlib import Path
from typing import Any

from . import callbacks, ownership
from .catalog import Catalog, using
from .config import Settings
from .conversation import Conversation
from .formats import TEXT_FORMATS, audio, get_writer
from .formats.stored import writer_language
from .planning import JSON_SUFFIX
from .stages import detect


def enqueue_callbacks(catalog: Catalog, body: dict[str, Any], settings: Settings,
                      streams: dict[str, str | None]) -> None:
    """Put the item's callbacks into the outbox (sent by deliver_callbacks, retried from there)."""
    deliveries = callbacks.plan(body, settings, {k: v for k, v in streams.items() if v}, time.time())
    if deliveries:
        catalog.outbox_add(deliveries)


def redacted_audio_path(outputs: dict[str, Path], source: Path, settings: Settings) -> Path | None:
    """Where the redacted copy of `source` goes (`call.redacted.wav`); None when no detector redacts audio."""
    if "json" not in outputs or not any("audio" in redactor for _, _, redactor in detect.configured(settings)):
        return None
    ext = settings.redacted_audio_format or ("flac" if source.suffix.lower() == ".flac" else "wav")
    json_path = outputs["json"]
    return json_path.with_name(json_path.name[: -len(JSON_SUFFIX)] + ".redacted." + ext)


def redact_audio(source: Path, conv: Conversation, outputs: dict[str, Path], settings: Settings,
                 catalog: Catalog | None = None) -> None:
    """Write the redacted copy of the recording when a detector asks for audio redaction; list the streams.

    Raise ownership.OutputConflict, before encoding, when a file of the set may not be written."""
    wanted = [d for d in conv.detectors or [] if d.tone is not None]
    target = redacted_audio_path(outputs, source, settings)
    if not wanted or target is None:
        return
    regions = [(s, e, d.tone[0], d.tone[1]) for d in wanted for s, e in d.regions()]
    with using(catalog) as cat:
        ownership.start_set([*outputs.values(), target], outputs["json"], cat)
        ownership.write(target, lambda tmp: audio.redact_into(source, tmp, regions, target.suffix[1:]), cat,
                        conv.media_id)
    outputs["redacted-audio"] = target
    conv.streams = [("original", source.resolve().as_uri(), "finished"),
                    ("redacted-audio", target.resolve().as_uri(), "finished")]


def write_outputs(body: dict[str, Any], conv: Conversation, outputs: dict[str, Path],
                  catalog: Catalog | None = None) -> dict[str, str]:
    """Write every text format, then the v3 JSON last (so a `.v3.json` means its set is complete), each
    atomically; absolute paths of the outputs, with the redacted audio when there is one.

    Raise ownership.OutputConflict, before writing anything, when a file of the set may not be written."""
    media_id = body.get("mediaId")
    lang = writer_language(conv.language)
    with using(catalog) as cat:
        ownership.start_set(outputs.values(), outputs["json"], cat)
        try:
            for name in TEXT_FORMATS:
                ownership.write(outputs[name], get_writer(name, lang).render(conv.words), cat, media_id)
            ownership.write(outputs["json"], json.dumps(body, indent=2, ensure_ascii=False) + "\n", cat, media_id)
        except BaseException:
            _remove_written(outputs, cat)
            raise
    return {k: str(Path(v).absolute()) for k, v in outputs.items()}


def _remove_written(outputs: dict[str, Path], catalog: Catalog) -> None:
    """After a failed write: remove the files of the set this item wrote, so no partial set stays behind
    (a file that is not speechproc's own content is left alone)."""
    for path in outputs.values():
        if os.path.lexists(path) and ownership.is_ours(Path(path), catalog):
            with suppress(OSError):
                os.unlink(path)
