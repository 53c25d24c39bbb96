"""Decode any audio or video file into per-channel float32 PCM; content type and length."""
from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path

import av
import numpy as np

from .errors import MEDIA_UNREADABLE, RESOURCE_NOT_FOUND, SpeechprocError

ASR_RATE = 16000

# Extensions picked up when walking a folder (VoiceBase's accepted types plus opus and friends).
MEDIA_EXTENSIONS = frozenset(
    ".mp3 .mp4 .flv .wmv .avi .mpeg .mpg .aac .aiff .aif .au .ogg .oga .opus .3gp .flac .ra .m4a .wma "
    ".m4v .caf .mov .webm .wav .asf .amr .mkv .mka .weba".split()
)

# PyAV container names -> MIME type (audio-only, with-video)
_CONTENT_TYPES = {
    "wav": ("audio/x-wav", "audio/x-wav"),
    "flac": ("audio/flac", "audio/flac"),
    "mp3": ("audio/mpeg", "audio/mpeg"),
    "ogg": ("audio/ogg", "video/ogg"),
    "mov,mp4,m4a,3gp,3g2,mj2": ("audio/mp4", "video/mp4"),
    "matroska,webm": ("audio/webm", "video/webm"),
    "aac": ("audio/aac", "audio/aac"),
    "aiff": ("audio/aiff", "audio/aiff"),
    "au": ("audio/basic", "audio/basic"),
    "amr": ("audio/amr", "audio/amr"),
    "asf": ("audio/x-ms-wma", "video/x-ms-asf"),
    "avi": ("video/x-msvideo", "video/x-msvideo"),
    "flv": ("video/x-flv", "video/x-flv"),
    "mpeg": ("audio/mpeg", "video/mpeg"),
    "caf": ("audio/x-caf", "audio/x-caf"),
    "rm": ("audio/x-pn-realaudio", "audio/x-pn-realaudio"),
}


@dataclass
class AudioTrack:
    """Decoded PCM of one audio stream: shape (channels, samples), float32 in [-1, 1]."""

    samples: np.ndarray
    sample_rate: int
    original_rate: int


@dataclass
class MediaInfo:
    content_type: str
    length_ms: int
    tracks: list[int]  # channel count of each audio stream, in stream order
    sample_rates: list[int] = field(default_factory=list)  # of each audio stream, in stream order


def _unreadable(path: Path, why: str) -> SpeechprocError:
    return SpeechprocError(MEDIA_UNREADABLE, f"{path}: the file is malformed or unreadable ({why})")


def _open(path: Path) -> av.container.InputContainer:
    if not path.exists():
        raise SpeechprocError(RESOURCE_NOT_FOUND, f"{path}: no such file", status=404)
    if path.is_dir():
        raise _unreadable(path, "it is a folder")
    if not os.access(path, os.R_OK):
        raise _unreadable(path, "permission denied")
    if path.stat().st_size == 0:
        raise _unreadable(path, "the file is empty")
    try:
        return av.open(str(path), metadata_errors="ignore")
    except (av.FFmpegError, UnicodeDecodeError, ValueError) as exc:
        raise _unreadable(path, f"not a recognised audio or video format: {exc}") from None


def content_type(container: av.container.InputContainer) -> str:
    """MIME type from what the container really holds (not from the file name)."""
    has_video = any(s.type == "video" and s.frames != 1 for s in container.streams)
    audio_only, with_video = _CONTENT_TYPES.get(container.format.name, ("application/octet-stream",) * 2)
    return with_video if has_video else audio_only


def probe(path: str | Path) -> MediaInfo:
    """Content type, length and audio streams of a file, without decoding it."""
    path = Path(path)
    with _open(path) as container:
        audio = container.streams.audio
        if not audio:
            raise _unreadable(path, "it has no audio stream")
        duration = container.duration / av.time_base if container.duration else 0.0
        if not duration and audio[0].duration and audio[0].time_base:
            duration = float(audio[0].duration * audio[0].time_base)
        return MediaInfo(content_type(container), round(duration * 1000), [s.channels for s in audio],
                         [s.sample_rate for s in audio])


def decode(path: str | Path, track: int = 0, sample_rate: int | None = ASR_RATE) -> AudioTrack:
    """Decode one audio stream to float32 PCM per channel, resampled to `sample_rate` (None keeps the original).

    Frames are written into one preallocated buffer, so a long file is held in memory once.
    """
    path = Path(path)
    with _open(path) as container:
        streams = container.streams.audio
        if track >= len(streams):
            raise _unreadable(path, f"it has no audio track {track} ({len(streams)} found)")
        stream = streams[track]
        rate = sample_rate or stream.sample_rate
        channels = stream.channels
        resampler = av.AudioResampler(format="fltp", layout=stream.layout.name, rate=rate)
        buffer = np.zeros((channels, _estimated_samples(container, stream, rate)), dtype=np.float32)
        filled = 0
        try:
            for frame in container.decode(stream):
                for out in resampler.resample(frame):
                    buffer, filled = _append(buffer, filled, out.to_ndarray())
            for out in resampler.resample(None):
                buffer, filled = _append(buffer, filled, out.to_ndarray())
        except (av.FFmpegError, ValueError) as exc:
            raise _unreadable(path, f"decoding failed: {exc}") from None
    if filled == 0:
        raise _unreadable(path, "it holds no audio samples")
    return AudioTrack(buffer[:, :filled], rate, stream.sample_rate or rate)


def _estimated_samples(container: av.container.InputContainer, stream: av.AudioStream, rate: int) -> int:
    seconds = 0.0
    if stream.duration and stream.time_base:
        seconds = float(stream.duration * stream.time_base)
    elif container.duration:
        seconds = container.duration / av.time_base
    return int(seconds * rate) + rate  # one second of slack for rounding and resampler delay


def _append(buffer: np.ndarray, filled: int, chunk: np.ndarray) -> tuple[np.ndarray, int]:
    n = chunk.shape[1]
    if filled + n > buffer.shape[1]:  # the container under-reported its length: grow by half
        grown = np.zeros((buffer.shape[0], max(filled + n, buffer.shape[1] * 3 // 2)), dtype=np.float32)
        grown[:, :filled] = buffer[:, :filled]
        buffer = grown
    buffer[:, filled : filled + n] = chunk[: buffer.shape[0]]
    return buffer, filled + n


def file_hash(path: str | Path) -> str:
    """SHA-256 of the file's bytes, streamed."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
