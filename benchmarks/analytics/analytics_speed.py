#!/usr/bin/env python3
"""Time the conversation analytics against recognition, on the sample call and on a 10-minute call.

Runs the real pipeline (speechproc.stages.pipeline.analyse) with configs/callcenter.yaml (all four metric
groups, voice features, advanced punctuation, speaker sentiments, verb-noun pairs, keywords and
topics) and records how long each stage takes. The 10-minute call is the sample call (69.6 s,
stereo) repeated 9 times (626 s). Models are loaded once first, and their load times are reported
separately; each engine of the sentiment stage is measured.

Usage: python benchmarks/analytics/analytics_speed.py [--threads 2] [--json OUT]
"""
from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
CALL = ROOT / "sample_media" / "call.flac"
CONFIG = ROOT / "configs" / "callcenter.yaml"
ANALYTICS = ("voice", "sentiment", "verbnoun", "knowledge", "metrics")


def timed_loads(settings) -> dict[str, float]:
    from speechproc.engines import models
    from speechproc.stages.analytics.sentiment import _head

    loads = {}
    recognition, text = settings.recognition, settings.discovery
    for name, load in (("whisper", lambda: models.load_whisper(recognition.model, recognition.device,
                                                               recognition.compute_type, recognition.threads)),
                       ("spacy", lambda: models.load_spacy(text.spacy_model)),
                       ("sentence_encoder", lambda: models.load_sentence_encoder(text.sentence_encoder)),
                       ("vader", models.load_vader), ("minilm_head", _head)):
        started = time.perf_counter()
        load()
        loads[name] = round(time.perf_counter() - started, 2)
    return loads


def run_once(path: Path, settings) -> dict[str, float]:
    """Seconds per stage of one recording through the pipeline."""
    from speechproc.conversation import Conversation
    from speechproc.stages.pipeline import analyse

    seconds: dict[str, float] = {}
    started: dict[str, float] = {}

    def on_stage(name: str, status: str) -> None:
        if status == "started":
            started[name] = time.perf_counter()
        elif status == "finished":
            seconds[name] = round(time.perf_counter() - started[name], 3)

    conv = Conversation("00000000-0000-0000-0000-000000000000")
    analyse(path, settings, conv, on_stage)
    seconds["words"] = sum(1 for w in conv.words if w.is_word)
    seconds["sentences"] = len(conv.sentences)
    return seconds


def summary(stages: dict[str, float]) -> dict[str, float]:
    analytics = sum(stages[s] for s in ANALYTICS)
    return {**stages, "analytics": round(analytics, 3),
            "analytics_share_of_asr": round(analytics / stages["asr"], 4)}


def ten_minute_call(folder: Path) -> Path:
    import sys

    from speechproc.media import decode
    sys.path.insert(0, str(ROOT / "tests"))
    from conftest import write_wav

    track = decode(CALL, sample_rate=None)
    return write_wav(folder / "call-10min.wav", np.tile(track.samples, (1, 9)), track.sample_rate)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()

    from speechproc.config import options
    from speechproc.config import v3 as config

    raw = config.load(CONFIG).raw
    result: dict = {"config": "configs/callcenter.yaml", "threads": args.threads}
    settings = {engine: options.build(config.validate({**raw, "speechproc": {**raw.get("speechproc", {}),
                                                                              "threads": args.threads,
                                                                              "sentimentEngine": engine}}))
                for engine in ("vader", "minilm")}
    result["model_loads_s"] = timed_loads(settings["vader"])
    print("model loads (s):", result["model_loads_s"])
    run_once(CALL, settings["vader"])  # warm every lazy path once
    with tempfile.TemporaryDirectory() as tmp:
        long_call = ten_minute_call(Path(tmp))
        for label, path in (("sample_call_70s", CALL), ("call_10min", long_call)):
            for engine in ("vader", "minilm"):
                row = summary(run_once(path, settings[engine]))
                result[f"{label}_{engine}"] = row
                print(f"{label} {engine}: asr {row['asr']:.2f} s, analytics {row['analytics']:.2f} s "
                      f"({100 * row['analytics_share_of_asr']:.1f} % of ASR): "
                      + ", ".join(f"{s} {row[s]:.2f}" for s in ANALYTICS))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
