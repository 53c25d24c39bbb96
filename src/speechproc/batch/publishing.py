"""Publishing one media item: the redacted audio, the text formats and the v3 JSON (last); its callbacks are
queued by the runner (`speechproc.delivery.outbox.enqueue`)."""
from __future__ import annotations

import io
import json
from collections.abc import Sequence
from pathlib import Path

from speechproc import errors as E
from speechproc.conversation import Conversation, DetectorFindings
from speechproc.formats import JSON_SUFFIX, TEXT_FORMATS, audio, get_writer, insights_text, openpgp
from speechproc.formats.stored import writer_language
from speechproc.paths import printable
from speechproc.report import call as report
from speechproc.results import MediaItem
from speechproc.store import ownership
from speechproc.store.ownership import OutputRecord


def redacted_audio_path(outputs: dict[str, Path], source: Path, redacts_audio: bool,
                        audio_format: str | None = None) -> Path | None:
    """Where the redacted copy of `source` goes (`call.redacted.wav`); None when no detector redacts audio.

    `audio_format` is publish.audioTranscode.fileFormat; None keeps FLAC for FLAC and WAV otherwise."""
    if "json" not in outputs or not redacts_audio:
        return None
    ext = audio_format or ("flac" if source.suffix.lower() == ".flac" else "wav")
    json_path = openpgp.plain_name(outputs["json"])
    target = json_path.with_name(json_path.name[: -len(JSON_SUFFIX)] + ".redacted." + ext)
    return openpgp.sealed_name(target) if outputs["json"].name.endswith(openpgp.SUFFIX) else target


def redact_audio(source: Path, target: Path, detectors: Sequence[DetectorFindings], record: OutputRecord,
                 media_id: str | None, encryption: openpgp.PublicKey | None = None) -> bool:
    """Write the redacted copy of `source` to `target`, the detections of every detector that redacts
    audio replaced by its tone; whether there was such a detector (else nothing is written). With
    `encryption` the copy is encoded in memory and only its ciphertext is written."""
    regions = [(s, e, d.tone[0], d.tone[1]) for d in detectors if d.tone is not None for s, e in d.regions()]
    if not any(d.tone is not None for d in detectors):
        return False
    fmt = openpgp.plain_name(target).suffix[1:]
    if encryption is not None:
        encoded = io.BytesIO()
        audio.redact_into(source, encoded, regions, fmt)
        ownership.write(target, openpgp.encrypt(encoded.getvalue(), encryption), record, media_id)
        return True
    ownership.write(target, lambda tmp: audio.redact_into(source, tmp, regions, fmt), record, media_id)
    return True


def write_outputs(body: MediaItem, conv: Conversation, outputs: dict[str, Path],
                  record: OutputRecord, source: Path | None = None,
                  encryption: openpgp.PublicKey | None = None) -> dict[str, str]:
    """Write every text format (and the HTML call report of the recording `source` when `outputs` names
    one), then the v3 JSON last (so a `.v3.json` means its set
    is complete), each atomically; absolute paths of the outputs (the redacted audio included when
    `outputs` names it).

    With `encryption` every file holds only the OpenPGP ciphertext of its content, encrypted in memory.

    Raise ownership.OutputConflict, before writing anything, when a file of the set may not be written."""
    media_id = body.get("mediaId")

    def seal(content: str) -> str | bytes:
        return openpgp.encrypt(content, encryption) if encryption is not None else content

    lang = writer_language(conv.language)
    page = _report(body, outputs, source)
    if page is None:
        outputs = {k: v for k, v in outputs.items() if k != "report"}
    if "insights" not in body and "insights" in outputs:  # not computed (a warning says why): no file,
        ownership.remove_own(outputs["insights"], record)  # nor an earlier run's beside this run's set
        outputs = {k: v for k, v in outputs.items() if k != "insights"}
    ownership.start_set(outputs.values(), outputs["json"], record)
    try:
        for name in TEXT_FORMATS:
            ownership.write(outputs[name], seal(get_writer(name, lang).render(conv.words)), record, media_id)
        if page is not None:
            ownership.write(outputs["report"], seal(page), record, media_id)
        if "insights" in outputs:
            ownership.write(outputs["insights"], seal(insights_text.render(body["insights"])), record, media_id)
        ownership.write(outputs["json"], seal(json.dumps(body, indent=2, ensure_ascii=False) + "\n"), record, media_id)
    except BaseException:
        _remove_written(outputs, record)
        raise
    return {k: str(Path(v).absolute()) for k, v in outputs.items()}


def _report(body: MediaItem, outputs: dict[str, Path], source: Path | None) -> str | None:
    """The item's HTML call report when `outputs` names one. Should drawing it fail, the item keeps every
    other output and a warning in its JSON says why: a report is never worth a recording's results."""
    if "report" not in outputs:
        return None
    try:
        return report.page_at(body, outputs["report"], source, outputs.get("json"))
    except Exception as exc:
        body.setdefault("warnings", []).append(
            {"code": E.INTERNAL, "message": printable(f"the HTML report was not written ({type(exc).__name__}: {exc})")})
        return None


def _remove_written(outputs: dict[str, Path], record: OutputRecord) -> None:
    """After a failed write: remove the files of the set this item wrote, so no partial set stays behind
    (a file that is not speechproc's own content is left alone)."""
    for path in outputs.values():
        ownership.remove_own(Path(path), record)
