#!/usr/bin/env python3
"""Time that word-level voice features add to a one-hour stereo call, against recognition time.

The committed sample call (69.6 s, stereo, 22.05 kHz) is recognised once, timed; its recording and
words are then repeated to one hour per channel (52 copies, about 8,800 words), and the voice-feature
stage (frequency peaks, volume, pitch at the original rate) is timed on that hour, together with the
extra decode at the original rate it needs. Recognition time for the hour is the measured time of
the sample call scaled to one hour (recognition is linear in audio length).

Usage: python benchmarks/speakers/voice_speed.py [--threads 2] [--json OUT]
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
CALL = ROOT / "sample_media" / "call.flac"
HOUR_S = 3600


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()

    from speechproc import media
    from speechproc.config import options
    from speechproc.config import v3 as config
    from speechproc.conversation import Conversation
    from speechproc.stages.recognition import asr, ingest
    from speechproc.stages.speakers import voice

    wanted = options.build(config.validate({"speechproc": {"threads": args.threads}}))
    asr.load(wanted.recognition)
    conv = Conversation("00000000-0000-0000-0000-000000000000")
    ingest.load_channels(CALL, wanted.ingest, conv)
    start = time.perf_counter()
    asr.run(conv, wanted.recognition)
    asr_call_s = time.perf_counter() - start
    call_s = conv.channels[0].samples.shape[0] / 16000
    copies = int(np.ceil(HOUR_S / call_s))

    start = time.perf_counter()
    original = media.decode(CALL, sample_rate=None)
    decode_call_s = time.perf_counter() - start
    rate = original.sample_rate
    period_ms = round(original.samples.shape[1] * 1000 / rate)
    hour = np.tile(original.samples, (1, copies))
    feature_s = 0.0
    words = 0
    for index, channel in enumerate(conv.channels):
        spans = [(w.s + k * period_ms, w.e + k * period_ms) for k in range(copies)
                 for w in conv.recognized if w.speaker == channel.speaker_name]
        words += len(spans)
        start = time.perf_counter()
        voice.analyse_words(np.ascontiguousarray(hour[index]), rate, spans)
        feature_s += time.perf_counter() - start
    asr_hour_s = asr_call_s * copies
    added_s = feature_s + decode_call_s * copies
    result = {
        "audio": f"sample call x{copies}: {copies * call_s / 60:.1f} min stereo at {rate} Hz, {words} words",
        "threads": args.threads,
        "asr_call_s": round(asr_call_s, 2),
        "asr_hour_s_scaled": round(asr_hour_s, 1),
        "voice_features_hour_s": round(feature_s, 2),
        "original_rate_decode_hour_s": round(decode_call_s * copies, 2),
        "added_over_asr": round(added_s / asr_hour_s, 4),
    }
    text = json.dumps(result, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text + "\n")


if __name__ == "__main__":
    main()
