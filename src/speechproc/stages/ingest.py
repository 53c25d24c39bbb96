"""Decode a recording and turn its channels into speakers, as the `ingest` configuration says."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from .. import errors as E
from ..config import Settings
from ..conversation import Channel, Conversation
from ..media import AudioTrack, decode, probe

IDENTICAL_TOLERANCE = 1e-3


def _mix(track: AudioTrack, index: int, name: str, role: str | None = None) -> Channel:
    samples = track.samples[0] if track.samples.shape[0] == 1 else track.samples.mean(axis=0, dtype=np.float32)
    return Channel(index, name, np.ascontiguousarray(samples), track.sample_rate, role)


def _split(track: AudioTrack, specs: list[dict], first_index: int = 0) -> list[Channel]:
    """One Channel per configured channel that is not ignored."""
    n = track.samples.shape[0]
    if len(specs) != n:
        raise E.SpeechprocError(E.INGEST_CHANNEL_MISMATCH,
                                f"ingest names {len(specs)} channel(s) but the recording has {n}")
    return [Channel(first_index + i, spec.get("speakerName") or f"Speaker{i + 1}",
                    np.ascontiguousarray(track.samples[i]), track.sample_rate, spec.get("speakerRole"))
            for i, spec in enumerate(specs) if not spec.get("ignore")]


def channels_identical(track: AudioTrack) -> bool:
    """True when every channel carries the same signal (a mono recording stored as stereo)."""
    first = track.samples[0]
    return all(np.max(np.abs(first - other), initial=0.0) <= IDENTICAL_TOLERANCE for other in track.samples[1:])


def default_channels(track: AudioTrack, conv: Conversation) -> list[Channel]:
    """No ingest section: mono -> Speaker; stereo -> Agent (left) and Caller (right); more -> SpeakerN."""
    n = track.samples.shape[0]
    if n == 1:
        return [_mix(track, 0, "Speaker")]
    if channels_identical(track):
        conv.warn(E.INGEST_ONE_CHANNEL_ONLY, f"the {n} channels are identical; processed as one speaker")
        return [_mix(track, 0, "Speaker")]
    names = ["Agent", "Caller"] if n == 2 else [f"Speaker{i + 1}" for i in range(n)]
    return [Channel(i, names[i], np.ascontiguousarray(track.samples[i]), track.sample_rate) for i in range(n)]


def load_channels(path: Path, settings: Settings, conv: Conversation) -> None:
    """Fill conv.channels, conv.content_type and conv.length_ms from the file."""
    info = probe(path)
    conv.content_type = info.content_type
    ingest = settings.ingest
    if "tracks" in ingest:
        conv.channels = []
        for k, spec in enumerate(ingest["tracks"]):
            track = decode(path, track=spec["trackIndex"])
            if "channels" in spec and "speakerName" not in spec:
                conv.channels += _split(track, spec["channels"], first_index=len(conv.channels))
            else:
                name = spec.get("speakerName") or ("Speaker" if len(ingest["tracks"]) == 1 else f"Speaker{k + 1}")
                conv.channels.append(_mix(track, len(conv.channels), name, spec.get("speakerRole")))
    else:
        track = decode(path)
        n = track.samples.shape[0]
        if "speakerName" in ingest:
            conv.channels = [_mix(track, 0, ingest["speakerName"], ingest.get("speakerRole"))]
        elif "stereo" in ingest:
            if n != 2:
                code = E.INGEST_ONE_CHANNEL_ONLY if n == 1 else E.INGEST_CHANNEL_MISMATCH
                raise E.SpeechprocError(code, f"ingest.stereo needs a two-channel recording; this one has {n}")
            conv.channels = _split(track, [ingest["stereo"]["left"], ingest["stereo"]["right"]])
        elif "channels" in ingest:
            conv.channels = _split(track, ingest["channels"])
        else:
            conv.channels = default_channels(track, conv)
    decoded_ms = round(conv.channels[0].samples.shape[0] * 1000 / conv.channels[0].sample_rate)
    conv.length_ms = info.length_ms or decoded_ms
