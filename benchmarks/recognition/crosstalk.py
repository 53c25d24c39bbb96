#!/usr/bin/env python3
"""How much of what batched recognition decodes on a two-channel call is the other party: the other party's echo
or cross-talk that the VAD takes for speech would be decoded for nothing (and its words put in the wrong mouth).

For the real SpokenWOZ call of ../shared/evaldata (8 kHz, caller left, agent right), decoded at 16 kHz as
speechproc decodes it: each channel's speech as the VAD finds it (`batching.speech_pieces`, the pieces
recognition decodes), the speech heard on both channels at once, and the speech of each channel during which
the other channel is louder by 6, 10 or 25 dB (50 ms frames): what removing the other party's echo could
save at most; and how much of that lies within the VAD's padding (400 ms) of the edges of the channel's own
speech pieces, where the other party's turn begins or ends.

Usage: python benchmarks/recognition/crosstalk.py [--json benchmarks/recognition/crosstalk.result.json]
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
CALL = ROOT.parent / "shared" / "evaldata" / "spokenwoz-speechbrain" / "MUL1011.opus"
FRAME_S = 0.05
LOUDER_DB = (6, 10, 25)
PAD_S = 0.4  # the speech padding of faster-whisper's VAD options, which speechproc's pieces keep


def frame_levels(samples: np.ndarray, frame: int) -> np.ndarray:
    """The level of each whole frame, in dB."""
    count = samples.shape[0] // frame
    power = np.mean(samples[:count * frame].reshape(count, frame).astype(np.float64) ** 2, axis=1)
    return 10 * np.log10(power + 1e-10)


def speech_frames(pieces: list[tuple[int, int]], frame: int, count: int) -> np.ndarray:
    found = np.zeros(count, dtype=bool)
    for start, end in pieces:
        found[start // frame:end // frame] = True
    return found


def near_edges(pieces: list[tuple[int, int]], frame: int, count: int, pad: int) -> np.ndarray:
    """Frames within `pad` samples of the start or the end of a piece."""
    found = np.zeros(count, dtype=bool)
    for start, end in pieces:
        for edge in (start, end):
            found[max(0, (edge - pad) // frame):(edge + pad) // frame] = True
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    if not CALL.exists():
        sys.exit(f"{CALL} is needed (../shared beside the project)")
    from speechproc.engines.batching import RATE, speech_pieces
    from speechproc.media import decode

    channels = [np.ascontiguousarray(c) for c in decode(CALL).samples]
    frame = round(FRAME_S * RATE)
    levels = [frame_levels(c, frame) for c in channels]
    count = min(len(level) for level in levels)
    pieces = [speech_pieces(c, True) for c in channels]
    speech = [speech_frames(p, frame, count) for p in pieces]
    edges = [near_edges(p, frame, count, round(PAD_S * RATE)) for p in pieces]
    seconds = lambda frames: round(float(np.sum(frames)) * FRAME_S, 1)  # noqa: E731
    result: dict = {"command": "python benchmarks/recognition/crosstalk.py", "call_s": round(channels[0].shape[0] / RATE, 1),
                    "speech_on_both_channels_s": seconds(speech[0] & speech[1]), "channels": []}
    for k, name in enumerate(("caller (left)", "agent (right)")):
        other = levels[1 - k][:count]
        louder = {db: speech[k] & (other - levels[k][:count] >= db) for db in LOUDER_DB}
        result["channels"].append({"channel": name, "speech_s": seconds(speech[k]), **{
            f"speech_while_other_louder_by_{db}_db_s": seconds(frames) for db, frames in louder.items()}, **{
            f"of_which_within_{PAD_S}_s_of_an_edge_of_its_speech_{db}_db_s": seconds(frames & edges[k])
            for db, frames in louder.items()}})
    print(json.dumps(result, indent=2))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
