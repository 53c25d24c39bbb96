"""Publishing one media item: every file it writes, in order (its redacted audio, the encrypted copy of its
recording, the text formats, the HTML call report, the insights, the v3 JSON last), each encrypted when the item
is; its callbacks are queued by the runner (`speechproc.delivery.outbox.enqueue`)."""
from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from functools import partial
from pathlib import Path

from speechproc import errors as E
from speechproc.conversation import Conversation, DetectorFindings
from speechproc.formats import JSON_SUFFIX, TEXT_FORMATS, audio, get_writer, openpgp, rttm
from speechproc.formats.insights_text import render as insights_text
from speechproc.formats.stored import writer_language
from speechproc.paths import printable
from speechproc.report import call as report
from speechproc.results import MediaItem
from speechproc.store.files import OutputRecord, Sealable, ownership


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


def publish_item(body: MediaItem, conv: Conversation, outputs: dict[str, Path], record: OutputRecord,
                 recording: Path | None, source: Path | None = None,
                 encryption: openpgp.PublicKey | None = None) -> dict[str, str]:
    """Write every output of one finished media item, each atomically, in the order `contents` makes them (the
    v3 JSON last, so that a `.v3.json` means its set is complete); absolute paths of the outputs. The copies of
    `recording` that `outputs` names are written first; `source` is the recording as the report names it (its
    URL for a download). With `encryption` every file holds only the OpenPGP ciphertext of its content.

    Raise ownership.OutputConflict, before writing anything, when a file of the set may not be written;
    should a write fail, the files of the set written so far are removed."""
    places = dict(outputs)
    # insights not computed (a warning says why): no file, nor an earlier run's beside this run's set
    uncomputed = places.pop("insights") if "insights" in outputs and "insights" not in body else None
    made = contents(body, conv, places, recording, source, encryption)
    if uncomputed is not None:
        ownership.remove_own(uncomputed, record)
    written = ownership.write_set(made, places, record, body.get("mediaId"), encryption)
    return {k: str(Path(v).absolute()) for k, v in places.items() if k != "report" or k in written}


def contents(body: MediaItem, conv: Conversation, places: dict[str, Path], recording: Path | None,
             source: Path | None = None, encryption: openpgp.PublicKey | None = None) -> Iterator[tuple[str, Sealable]]:
    """The content of each output `places` names, in the order written, each made when its turn comes: the
    copies of `recording` (none without one), the text formats (and RTTM, when asked for), the HTML call report
    (drawn once the redacted audio it plays is in place; none when drawing it fails), the insights, and the v3
    JSON last."""
    if recording is not None:
        yield from recording_copies(recording, conv.detectors or [], places, encryption).items()
    page = _report(body, places, source)
    lang = writer_language(conv.language)
    for name in TEXT_FORMATS:
        yield name, get_writer(name, lang).render(conv.words)
    if "rttm" in places:
        yield "rttm", rttm.of_item(body, rttm.file_id_of(places["json"].name, body["mediaId"]))
    if page is not None:
        yield "report", page
    if "insights" in places:
        yield "insights", insights_text(body["insights"])
    yield "json", json.dumps(body, indent=2, ensure_ascii=False) + "\n"


def recording_copies(recording: Path, detectors: Sequence[DetectorFindings], outputs: dict[str, Path],
                     encryption: openpgp.PublicKey | None = None) -> dict[str, Sealable]:
    """The copies of `recording` that `outputs` names, each as the content to write: its redacted copy, and
    with `encryption` the recording itself (read whole: a recording fits in memory)."""
    copies: dict[str, Sealable] = {}
    if "redacted-audio" in outputs:
        copies["redacted-audio"] = redacted_copy(recording, detectors, outputs["redacted-audio"])
    if "original-encrypted" in outputs and encryption is not None:
        copies["original-encrypted"] = recording.read_bytes()
    return copies


def redacted_copy(source: Path, detectors: Sequence[DetectorFindings], target: Path) -> Sealable:
    """What writes the redacted copy of `source` in the format `target` is named for (to a file or memory): the
    detections of every detector that redacts audio replaced by its tone."""
    regions = [(s, e, d.tone[0], d.tone[1]) for d in detectors if d.tone is not None for s, e in d.regions()]
    return partial(audio.redact_into, source, regions=regions, fmt=openpgp.plain_name(target).suffix[1:])


def redact_audio(source: Path, target: Path, detectors: Sequence[DetectorFindings], record: OutputRecord,
                 media_id: str | None, encryption: openpgp.PublicKey | None = None) -> bool:
    """Write the redacted copy of `source` to `target` (`redacted_copy`, encrypted with `encryption`);
    whether a detector redacts audio (else nothing is written)."""
    if not any(d.tone is not None for d in detectors):
        return False
    ownership.write(target, redacted_copy(source, detectors, target), record, media_id, encryption)
    return True


def write_outputs(body: MediaItem, conv: Conversation, outputs: dict[str, Path], record: OutputRecord,
                  source: Path | None = None, encryption: openpgp.PublicKey | None = None) -> dict[str, str]:
    """`publish_item` without copies of the recording: the text formats, the HTML call report of the recording
    `source` when `outputs` names one, the insights and the v3 JSON; a redacted copy that `outputs` names is
    one already written, listed with the rest."""
    return publish_item(body, conv, outputs, record, None, source, encryption)


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
