#!/usr/bin/env python3
"""Build the recordings of benchmarks/speakers/diarization_recordings.json for benchmarks/speakers/diarization_public.py:
`<id>.flac` (16 kHz, mono, 16-bit) and `<id>.rttm` (the reference, its uri the id) in one folder.

Public entries (a GitHub repository at a commit): every original is looked for in RAWDIR under the basename of
its source path (e.g. `reference.rttm`), else as any file of RAWDIR with the listed SHA-256 (so a folder of
originals under other names serves too); with --download a missing one is fetched from
https://raw.githubusercontent.com/{repo}/{commit}/{path} into RAWDIR under its basename. Every original's
SHA-256 must be the listed one. A source with two repositories lists them as "A (audio) + B (reference)" with
commits "c1 / c2"; several audio files (the channels of one call) are joined with " + ", as are their hashes.
The audio is converted by ffmpeg (channels mixed down; an excerpt [start, end] is cut out) and the reference
turned into RTTM lines, cropped to the excerpt (and shifted to its start) and to the audio's end:
  rttm            the lines whose uri is the audio file's stem (an RTTM with a single uri is taken whole)
  segments-csv    "start,end,label" lines
  exmaralda-exb   the events of the `ts` (turn) tiers; a turn with no end time runs to the end of the audio
  chat-cha        each utterance's last bullet (start_end in ms); utterances without one are left out
  vad-per-channel computed: Silero VAD (faster_whisper, min_silence_duration_ms=300, speech_pad_ms=60,
                  min_speech_duration_ms=200) on each channel at 16 kHz, one speaker per channel: `ch0_left`,
                  `ch1_right` of a stereo file, or the last "_" part of each file's name (`agent`, `caller`).
                  Its listed reference hash (of the builder's cached VAD json) is not checked.
Entries from ../shared/evaldata (beside the repository) and from this repository ("speechproc") take their audio
and reference exactly as benchmarks/speakers/diarization.py references() reads them (so MUL1011's per-channel VAD is its
_vad_per_channel, with its own settings); the audio is its mono() mix, written as PCM_16 by soundfile.

Usage: python benchmarks/speakers/diarization_data.py --out DIR [--raw RAWDIR] [--download]   (RAWDIR defaults to DIR/raw)
"""
from __future__ import annotations

import argparse
import hashlib
import json
import math
import re
import subprocess
import sys
import urllib.request
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import soundfile as sf

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks" / "speakers"))

import diarization  # noqa: E402

LIST = Path(__file__).resolve().parent / "diarization_recordings.json"
RATE = 16000


def sha256(path: Path) -> str:
    """The SHA-256 of a file's bytes, in hex."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def originals(entry: dict) -> tuple[list[tuple[str, str]], tuple[str, str] | None]:
    """([(url, sha256)] of the audio files, (url, sha256) of the reference or None if it is computed).
    The audio comes from the first repository and commit listed, the reference from the last."""
    source = entry["source"]
    repos = [part.split()[0] for part in source["repo"].split(" + ")]
    commits = source["commit"].split(" / ")
    base = "https://raw.githubusercontent.com/{}/{}/{}"
    audio = [(base.format(repos[0], commits[0], path), digest) for path, digest in
             zip(source["audio_path"].split(" + "), entry["sha256_audio_original"].split(" + "), strict=True)]
    if source["reference_path"].startswith("computed:"):
        return audio, None
    path = source["reference_path"].split(" (")[0]
    return audio, (base.format(repos[-1], commits[-1], path), entry["sha256_reference_original"])


class Raw:
    """The folder of originals: lookup by basename, then by content, then (with download) from the web."""

    def __init__(self, folder: Path, download: bool):
        self.folder, self.download, self._by_hash = folder, download, None

    def get(self, entry_id: str, url: str, digest: str) -> Path:
        """The original at `url` whose SHA-256 must be `digest`; exits with a message naming the entry if not."""
        path = self.folder / url.rsplit("/", 1)[1]
        if not path.exists():
            if self._by_hash is None:
                files = sorted(self.folder.glob("*")) if self.folder.is_dir() else []
                self._by_hash = {sha256(p): p for p in files if p.is_file()}
            if digest in self._by_hash:
                return self._by_hash[digest]
            if not self.download:
                sys.exit(f"{entry_id}: original missing: no {path.name} (or file with SHA-256 {digest}) in "
                         f"{self.folder}; pass --download to fetch {url}")
            fetch(entry_id, url, digest, path)
        elif sha256(path) != digest:
            sys.exit(f"{entry_id}: SHA-256 mismatch for {path}: expected {digest}, got {sha256(path)} ({url})")
        return path


def fetch(entry_id: str, url: str, digest: str, path: Path) -> None:
    """Download `url` to `path`, refusing (and writing nothing) if its SHA-256 is not `digest`."""
    print(f"{entry_id}: downloading {url}", file=sys.stderr)
    try:
        with urllib.request.urlopen(url, timeout=60) as response:
            data = response.read()
    except OSError as error:
        sys.exit(f"{entry_id}: cannot download {url}: {error}")
    if hashlib.sha256(data).hexdigest() != digest:
        sys.exit(f"{entry_id}: SHA-256 mismatch for {url}: expected {digest}, got {hashlib.sha256(data).hexdigest()}")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def read_rttm(path: Path, uri: str) -> list[tuple[float, float, str]]:
    """The turns of `uri` in an RTTM file, or all of them if the file holds a single uri."""
    rows = [line.split() for line in path.read_text().splitlines()]
    rows = [r for r in rows if len(r) >= 8 and r[0] == "SPEAKER"]
    if len({r[1] for r in rows}) > 1:
        rows = [r for r in rows if r[1] == uri]
    return [(float(r[3]), float(r[3]) + float(r[4]), r[7]) for r in rows]


def read_segments_csv(path: Path) -> list[tuple[float, float, str]]:
    """Lines of start, end, label (separated by commas or white space)."""
    fields = [line.replace(",", " ").split() for line in path.read_text().splitlines()]
    return [(float(f[0]), float(f[1]), f[2]) for f in fields if len(f) >= 3]


def read_exb(path: Path) -> list[tuple[float, float | None, str]]:
    """EXMARaLDA: the events of the `ts` tiers; an untimed point takes the nearest timed one before a start or
    after an end (None if there is none)."""
    root = ET.parse(path).getroot()
    timeline = [(tli.get("id"), tli.get("time")) for tli in root.find(".//common-timeline").iter("tli")]
    order = {name: i for i, (name, _) in enumerate(timeline)}

    def time(name: str, step: int) -> float | None:
        i = order[name]
        while timeline[i][1] is None:
            i += step
            if not 0 <= i < len(timeline):
                return None
        return float(timeline[i][1])

    speakers = {s.get("id"): s.findtext("abbreviation") for s in root.iter("speaker")}
    return [(time(event.get("start"), -1), time(event.get("end"), 1), speakers[tier.get("speaker")])
            for tier in root.iter("tier") if tier.get("category") == "ts" for event in tier.findall("event")]


def read_cha(path: Path) -> list[tuple[float, float, str]]:
    """TalkBank CHAT: each `*SPK:` utterance (with its tab-indented continuation lines) at its last bullet."""
    utterances: list[list[str]] = []
    current = None
    for line in path.read_text(encoding="utf-8").split("\n"):
        if line.startswith("*"):
            current = [line[1:line.index(":")], line]
            utterances.append(current)
        elif line.startswith("\t") and current is not None:
            current[1] += line
        else:
            current = None
    segments = []
    for speaker, text in utterances:
        bullets = re.findall(r"\x15(\d+)_(\d+)\x15", text)
        if bullets:
            segments.append((int(bullets[-1][0]) / 1000, int(bullets[-1][1]) / 1000, speaker))
    return segments


def decode_channel(path: Path, channel: int | None) -> np.ndarray:
    """One channel (or the mono mix) of a file as 16 kHz float32, decoded by ffmpeg."""
    command = ["ffmpeg", "-v", "error", "-i", str(path), "-vn"]
    if channel is not None:
        command += ["-af", f"pan=mono|c0=c{channel}"]
    command += ["-ac", "1", "-ar", str(RATE), "-f", "f32le", "-"]
    return np.frombuffer(subprocess.run(command, check=True, capture_output=True).stdout, dtype=np.float32).copy()


def vad_per_channel(audio: list[Path]) -> list[tuple[float, float, str]]:
    """Silero VAD speech regions of each channel, one speaker per channel (see the module docstring)."""
    from faster_whisper.vad import VadOptions, get_speech_timestamps

    if len(audio) == 1:
        channels = [("ch0_left", audio[0], 0), ("ch1_right", audio[0], 1)]
    else:
        channels = [(path.stem.rsplit("_", 1)[-1], path, None) for path in audio]
    options = VadOptions(min_silence_duration_ms=300, speech_pad_ms=60, min_speech_duration_ms=200)
    segments = []
    for label, path, channel in channels:
        for chunk in get_speech_timestamps(decode_channel(path, channel), options, sampling_rate=RATE):
            segments.append((round(chunk["start"] / RATE, 3), round(chunk["end"] / RATE, 3), label))
    return segments


def convert(audio: list[Path], excerpt: list[float] | None, out: Path) -> None:
    """ffmpeg: the files (several are merged as the channels of one call), cut to the excerpt, to 16 kHz mono
    16-bit FLAC."""
    command = ["ffmpeg", "-y", "-v", "error"]
    for path in audio:
        command += ["-i", str(path)]
    if len(audio) > 1:
        inputs = "".join(f"[{i}:a]" for i in range(len(audio)))
        command += ["-filter_complex", f"{inputs}amerge=inputs={len(audio)}[m]", "-map", "[m]"]
    if excerpt:
        command += ["-ss", str(excerpt[0]), "-to", str(excerpt[1])]
    command += ["-vn", "-ac", "1", "-ar", str(RATE), "-sample_fmt", "s16", "-c:a", "flac", str(out)]
    subprocess.run(command, check=True)


def crop(segments: list, start: float, end: float) -> list[tuple[float, float, str]]:
    """The parts of the segments inside [start, end], shifted by -start (open ends run to `end`)."""
    out = []
    for s, e, label in segments:
        s2, e2 = max(s, start), min(math.inf if e is None else e, end)
        if e2 - s2 > 1e-6:
            out.append((s2 - start, e2 - start, label))
    return out


def write_rttm(path: Path, uri: str, segments: list[tuple[float, float, object]]) -> None:
    """RTTM SPEAKER lines, sorted, times to the millisecond."""
    rows = sorted((s, e, str(label)) for s, e, label in segments)
    path.write_text("".join(f"SPEAKER {uri} 1 {s:.3f} {e - s:.3f} <NA> <NA> {label} <NA> <NA>\n" for s, e, label in rows))


def build_public(entry: dict, raw: Raw, out: Path) -> None:
    """An entry from a public repository: check, convert and write its FLAC and RTTM."""
    audio_sources, reference_source = originals(entry)
    audio = [raw.get(entry["id"], url, digest) for url, digest in audio_sources]
    flac = out / f"{entry['id']}.flac"
    convert(audio, entry["excerpt"], flac)
    duration = sf.info(str(flac)).frames / RATE
    fmt = entry["source"]["reference_format"]
    if reference_source is None:
        segments = vad_per_channel(audio)
    else:
        reference = raw.get(entry["id"], *reference_source)
        uri = Path(entry["source"]["audio_path"].split(" + ")[0]).stem
        readers = {"rttm": lambda p: read_rttm(p, uri), "segments-csv": read_segments_csv, "exmaralda-exb": read_exb,
                   "chat-cha": read_cha}
        segments = readers[re.split(r"[ (]", fmt)[0]](reference)
    start, end = entry["excerpt"] or (0.0, math.inf)
    segments = crop(segments, start, end)
    segments = [(s, min(e, duration), label) for s, e, label in segments if s < duration]
    write_rttm(out / f"{entry['id']}.rttm", entry["id"], segments)


def build_local(entry: dict, references: dict[Path, list], out: Path) -> None:
    """An entry from ../shared/evaldata or this repository, as benchmarks/speakers/diarization.py references() reads it."""
    folder = ROOT if entry["source"]["repo"] == "speechproc" else diarization.EVAL
    path = folder / entry["source"]["audio_path"]
    if path not in references:
        sys.exit(f"{entry['id']}: {path} is not among benchmarks/speakers/diarization.py references() (is {folder} there?)")
    sf.write(str(out / f"{entry['id']}.flac"), diarization.mono(path), RATE, subtype="PCM_16")
    write_rttm(out / f"{entry['id']}.rttm", entry["id"], [(s / 1000, e / 1000, sp) for s, e, sp in references[path]])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="folder for <id>.flac and <id>.rttm")
    parser.add_argument("--raw", type=Path, help="folder of the originals (default: OUT/raw)")
    parser.add_argument("--download", action="store_true", help="fetch missing originals from GitHub into RAWDIR")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    raw = Raw(args.raw or args.out / "raw", args.download)
    entries = json.loads(LIST.read_text())["recordings"]
    references = None
    for entry in entries:
        if "commit" in entry["source"]:
            build_public(entry, raw, args.out)
        else:
            if references is None:
                references = {path: ref for _, path, ref in diarization.references()}
            build_local(entry, references, args.out)
        print(entry["id"], file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
