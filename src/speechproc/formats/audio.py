"""The redacted copy of a recording: every detected region of every channel replaced by a tone.

The recording is read at its own rate, channels and sample width (16 or 32 bit), so that with a
lossless format (WAV, FLAC) every sample outside the regions is bit-identical to the original.
"""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import BinaryIO

import av
import numpy as np

from speechproc.errors import INVALID_VALUE, SpeechprocError
from speechproc.media import open_input, planes
from speechproc.paths import atomic_path

CODECS = {"wav": ("pcm_s16le", "pcm_s32le"), "flac": ("flac", "flac"), "mp3": ("libmp3lame", "libmp3lame"),
          "ogg": ("libopus", "libopus"), "opus": ("libopus", "libopus")}  # ogg: Opus in an Ogg container
FLAC_MAX_CHANNELS = 8
Region = tuple[int, int, int, float]  # start ms, end ms, tone Hz, gain 0..1


def read_pcm(path: str | Path) -> tuple[np.ndarray, int, str, bool]:
    """(samples as int32 or int16 array (channels, n), rate, channel layout, 32-bit?) of the first audio stream."""
    with open_input(str(path)) as container:
        stream = container.streams.audio[0]
        wide = stream.format.bytes > 2
        layout = stream.layout.name
        if layout.endswith("channels"):  # no channel mask (a plain WAV): name the usual layout
            layout = {1: "mono", 2: "stereo"}.get(stream.channels, layout)
        # packed formats: PyAV's planar frames crash the process from 8 channels on
        resampler = av.AudioResampler(format="s32" if wide else "s16", layout=layout, rate=stream.rate)
        chunks = [planes(out) for frame in container.decode(stream) for out in resampler.resample(frame)]
        chunks += [planes(out) for out in resampler.resample(None)]
        rate = stream.rate
    samples = np.concatenate(chunks, axis=1) if chunks else np.zeros((stream.channels, 0), np.int16)
    return samples, rate, layout, wide


def with_tones(samples: np.ndarray, rate: int, regions: Sequence[Region]) -> np.ndarray:
    """A copy with each region (on every channel) replaced by a sine of its tone and gain."""
    out = samples.copy()
    full_scale = np.iinfo(samples.dtype).max
    for start_ms, end_ms, tone, gain in regions:
        a, b = max(0, start_ms * rate // 1000), min(samples.shape[1], end_ms * rate // 1000)
        if b <= a:
            continue
        t = np.arange(a, b) / rate
        out[:, a:b] = np.round(gain * full_scale * np.sin(2 * np.pi * tone * t)).astype(samples.dtype)
    return out


def write(path: str | Path, samples: np.ndarray, rate: int, layout: str, wide: bool, fmt: str) -> None:
    """Encode samples (channels, n) to `path` in `fmt` (wav, flac, mp3, ogg, opus), atomically."""
    with atomic_path(Path(path)) as tmp:
        encode(tmp, samples, rate, layout, wide, fmt)


def encode(path: str | Path | BinaryIO, samples: np.ndarray, rate: int, layout: str, wide: bool, fmt: str) -> None:
    """Encode samples (channels, n) straight into `path` (or a binary file object: memory) in `fmt`; the caller
    makes it atomic."""
    if fmt == "flac" and samples.shape[0] > FLAC_MAX_CHANNELS:
        raise SpeechprocError(INVALID_VALUE, f"the redacted audio cannot be FLAC: FLAC holds at most {FLAC_MAX_CHANNELS} "
                              f"channels and the recording has {samples.shape[0]} (set "
                              "publish.audioTranscode.fileFormat to wav)")
    codec = CODECS[fmt][1 if wide else 0]
    target = path if not isinstance(path, (str, Path)) else str(path)
    with av.open(target, "w", format={"ogg": "ogg", "opus": "ogg"}.get(fmt, fmt)) as container:
        stream = container.add_stream(codec, rate=48000 if codec == "libopus" else rate, layout=layout)
        packed = "s32" if samples.dtype == np.int32 else "s16"
        step = 4096
        for i in range(0, samples.shape[1], step):
            interleaved = np.ascontiguousarray(samples[:, i: i + step].T).reshape(1, -1)
            frame = av.AudioFrame.from_ndarray(interleaved, format=packed, layout=layout)
            frame.rate = rate
            for packet in stream.encode(frame):
                container.mux(packet)
        for packet in stream.encode(None):
            container.mux(packet)


def redact(source: str | Path, target: str | Path, regions: Sequence[Region], fmt: str) -> None:
    """Write the redacted copy of `source` to `target`, atomically."""
    samples, rate, layout, wide = read_pcm(source)
    write(target, with_tones(samples, rate, regions), rate, layout, wide, fmt)


def redact_into(source: str | Path, path: str | Path | BinaryIO, regions: Sequence[Region], fmt: str) -> None:
    """Encode the redacted copy of `source` straight into `path` (a temporary file the caller publishes, or
    memory: a binary file object)."""
    samples, rate, layout, wide = read_pcm(source)
    encode(path, with_tones(samples, rate, regions), rate, layout, wide, fmt)
