"""Decode a recording and turn its channels into speakers, as the `ingest` configuration says."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from speechproc import errors as E
from speechproc.configuration import ChannelEntry
from speechproc.conversation import Channel, Conversation
from speechproc.media import ASR_RATE, AudioTrack, decode, probe
from speechproc.stages.options import IngestOptions

IDENTICAL_TOLERANCE = 1e-3


def _mix(track: AudioTrack, index: int, name: str, role: str | None = None, named: bool = True,
         default_name: bool = False) -> Channel:
    samples = track.samples[0] if track.samples.shape[0] == 1 else track.samples.mean(axis=0, dtype=np.float32)
    return Channel(index, name, np.ascontiguousarray(samples), track.sample_rate, role, named=named,
                   default_name=default_name)


def _split(track: AudioTrack, specs: list[ChannelEntry], first_index: int = 0) -> list[Channel]:
    """One Channel per configured channel that is not ignored."""
    n = track.samples.shape[0]
    if len(specs) != n:
        raise E.SpeechprocError(E.INGEST_CHANNEL_MISMATCH,
                                f"ingest names {len(specs)} channel(s) but the recording has {n}")
    return [Channel(first_index + i, spec.get("speakerName") or f"Speaker{i + 1}",
                    np.ascontiguousarray(track.samples[i]), track.sample_rate, spec.get("speakerRole"),
                    default_name="speakerName" not in spec)
            for i, spec in enumerate(specs) if not spec.get("ignore")]


def channels_identical(track: AudioTrack) -> bool:
    """True when every channel carries the same signal (a mono recording stored as stereo)."""
    first = track.samples[0]
    return all(np.max(np.abs(first - other), initial=0.0) <= IDENTICAL_TOLERANCE for other in track.samples[1:])


def may_leave_unnamed(options: IngestOptions) -> bool:
    """Whether some recording could come out of ingest as one channel nobody named (then diarized): with
    no ingest section, or one track left unnamed."""
    layout = options.layout
    if not layout:
        return True
    tracks = layout.get("tracks") or []
    return len(tracks) == 1 and "speakerName" not in tracks[0] and "channels" not in tracks[0]


def default_channels(track: AudioTrack, conv: Conversation) -> list[Channel]:
    """No ingest section: mono -> Speaker; stereo -> Agent (left) and Caller (right); more -> SpeakerN."""
    n = track.samples.shape[0]
    if n == 1:
        return [_mix(track, 0, "Speaker", named=False, default_name=True)]
    if channels_identical(track):
        conv.warn(E.INGEST_ONE_CHANNEL_ONLY, f"the {n} channels are identical; processed as one channel")
        return [_mix(track, 0, "Speaker", named=False, default_name=True)]
    names = ["Agent", "Caller"] if n == 2 else [f"Speaker{i + 1}" for i in range(n)]
    return [Channel(i, names[i], np.ascontiguousarray(track.samples[i]), track.sample_rate, default_name=True)
            for i in range(n)]


def build_channels(path: Path, options: IngestOptions, conv: Conversation,
                   rate: int | None = ASR_RATE) -> list[Channel]:
    """The speakers' channels of the file at `rate` (None: the recording's own rate), as `ingest` says."""
    ingest = options.layout
    if "tracks" in ingest:
        channels: list[Channel] = []
        for k, spec in enumerate(ingest["tracks"]):
            track = decode(path, track=spec["trackIndex"], sample_rate=rate)
            if "channels" in spec and "speakerName" not in spec:
                channels += _split(track, spec["channels"], first_index=len(channels))
            else:
                single = len(ingest["tracks"]) == 1
                name = spec.get("speakerName") or ("Speaker" if single else f"Speaker{k + 1}")
                channels.append(_mix(track, len(channels), name, spec.get("speakerRole"),
                                     named="speakerName" in spec or not single, default_name="speakerName" not in spec))
        return channels
    track = decode(path, sample_rate=rate)
    n = track.samples.shape[0]
    if "speakerName" in ingest:
        return [_mix(track, 0, ingest["speakerName"], ingest.get("speakerRole"))]
    if "stereo" in ingest:
        if n != 2:
            code = E.INGEST_ONE_CHANNEL_ONLY if n == 1 else E.INGEST_CHANNEL_MISMATCH
            raise E.SpeechprocError(code, f"ingest.stereo needs a two-channel recording; this one has {n}")
        return _split(track, [ingest["stereo"]["left"], ingest["stereo"]["right"]])
    if "channels" in ingest:
        return _split(track, ingest["channels"])
    return default_channels(track, conv)


def attach_originals(path: Path, options: IngestOptions, conv: Conversation) -> None:
    """Give every channel its samples at the recording's own rate (the ASR copy when that is 16 kHz)."""
    if not options.original_rate or all(c.original is not None for c in conv.channels):
        return
    if reads_recognition_copy(path, options):
        originals = conv.channels
    else:
        originals = build_channels(path, options, Conversation(conv.media_id), rate=None)
    for channel, original in zip(conv.channels, originals):
        channel.original, channel.original_rate = original.samples, original.sample_rate


def reads_recognition_copy(path: Path, options: IngestOptions) -> bool:
    """Whether the voice features, when asked for, read the 16 kHz copy (no other rate, or it is the file's own)."""
    return not options.original_rate or all(rate == ASR_RATE for rate in probe(path).sample_rates)


def load_channels(path: Path, options: IngestOptions, conv: Conversation) -> None:
    """Fill conv.channels (at 16 kHz), conv.content_type and conv.length_ms from the file."""
    info = probe(path)
    conv.content_type = info.content_type
    conv.channels = build_channels(path, options, conv)
    decoded_ms = round(conv.channels[0].live_samples().shape[0] * 1000 / conv.channels[0].sample_rate)
    conv.length_ms = info.length_ms or decoded_ms
