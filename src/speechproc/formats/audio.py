"""The redacted copy of a recording: every detected region of every channel replaced by a tone.

The recording is read at its own rate, channels and sample width (16 or 32 bit), so that with a
lossless format (WAV, FLAC) every sample outside the regions is bit-identical to the original.
"""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import av
import numpy as np

from ..paths import atomic_path

CODECS = {"wav": ("pcm_s16le", "pcm_s32le"), "flac": ("flac", "flac"), "mp3": ("libmp3lame", "libmp3lame"),
          "ogg": ("libopus", "libopus"), "opus": ("libopus", "libopus")}  # ogg: Opus in an Ogg container
Region = tuple[int, int, int, float]  # start ms, end ms, tone Hz, gain 0..1


def read_pcm(path: str | Path) -> tuple[np.ndarray, int, str, bool]:
    """(samples as int32 or int16 array (channels, n), rate, channel layout, 32-bit?) of the first audio stream."""
    with av.open(str(path)) as container:
        stream = container.streams.audio[0]
        wide = stream.format.bytes > 2
        layout = stream.layout.name
        if layout.endswith("channels"):  # no channel mask (a plain WAV): name the usual layout
            layout = {1: "mono", 2: "stereo"}.get(stream.channels, layout)
        resampler = av.AudioResampler(format="s32p" if wide else "s16p", layout=layout, rate=stream.rate)
        chunks = [out.to_ndarray() for frame in container.decode(stream) for out in resampler.resample(frame)]
        chunks += [out.to_ndarray() for out in resampler.resample(None)]
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
    codec = CODECS[fmt][1 if wide else 0]
    with atomic_path(Path(path)) as tmp:
        with av.open(str(tmp), "w", format={"ogg": "ogg", "opus": "ogg"}.get(fmt, fmt)) as container:
            stream = container.add_stream(codec, rate=48000 if codec == "libopus" else rate, layout=layout)
            planar = "s32p" if samples.dtype == np.int32 else "s16p"
            step = 4096
            for i in range(0, samples.shape[1], step):
                frame = av.AudioFrame.from_ndarray(np.ascontiguousarray(samples[:, i: i + step]), format=planar,
                                                   layout=layout)
                frame.rate = rate
                for packet in stream.encode(frame):
                    container.mux(packet)
            for packet in stream.encode(None):
                container.mux(packet)


def redact(source: str | Path, target: str | Path, regions: Sequence[Region], fmt: str) -> None:
    """Write the redacted copy of `source` to `target`."""
    samples, rate, layout, wide = read_pcm(source)
    write(target, with_tones(samples, rate, regions), rate, layout, wide, fmt)
