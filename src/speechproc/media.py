"""Decode any audio or video file into per-channel float32 PCM; content type and length."""
from __future__ import annotations

import ctypes
import ctypes.util
import functools
import os
import struct
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import av
import numpy as np

from speechproc.errors import MEDIA_UNREADABLE, RESOURCE_NOT_FOUND, SpeechprocError
from speechproc.paths import sha256_file

ASR_RATE = 16000
# Every channel is recognised on its own, so the channel count multiplies memory and recognition time.
MAX_CHANNELS = 32
# Below this a recording cannot carry speech; a header claiming less would make resampling blow up the file.
MIN_SAMPLE_RATE = 4000
MAX_SAMPLE_RATE = 768000
# Fewest bytes one second of any codec we read takes; bounds what a lying header can make decode preallocate.
MIN_BYTES_PER_SECOND = 64
RESAMPLED_FRAME = 16384
# A WAV file is read in packets of this many bytes rather than FFmpeg's 4,096: the same samples in an eighth of
# the decoder's and resampler's steps (a 12-minute stereo call decodes in about half the time).
WAV_PACKET_BYTES = 32768
WAV_MAGIC = (b"RIFF", b"RF64", b"BW64")


# PyAV before 19 decodes every tag at open and raises on one of invalid UTF-8 unless told to ignore errors;
# PyAV 19 removed that argument and keeps undecodable bytes as surrogates (speechproc reads no tag).
TAGS_NEED_IGNORING = int(av.__version__.split(".", 1)[0]) < 19


def open_input(path: str, options: dict[str, str] | None = None) -> av.container.InputContainer:
    """`av.open` for reading, with the same behaviour on every supported PyAV: a tag that is not valid
    UTF-8 never makes a file unreadable. `options` go to the demuxer."""
    if TAGS_NEED_IGNORING:
        return av.open(path, "r", metadata_errors="ignore", options=options or {})
    return av.open(path, "r", options=options or {})


def _demuxer_options(path: Path) -> dict[str, str]:
    """For a WAV file, larger packets (its demuxer's `max_size`) and a probe of at most one of them
    (`probesize`); nothing for any other format.

    A WAV file's header says all that the streams' parameters are; with larger packets FFmpeg would read and
    decode packets up to its default probe size (5 MB) to look for more: 9 ms of a 10-second file's open, 51 ms
    of a 12-minute one's."""
    try:
        with open(path, "rb") as f:
            head = f.read(12)
    except OSError:  # unreadable now: FFmpeg's open says why
        return {}
    if not _is_wav(head):
        return {}
    return {"max_size": str(WAV_PACKET_BYTES), "probesize": str(WAV_PACKET_BYTES)}


def _is_wav(head: bytes) -> bool:
    """Whether a file's first bytes are those of a WAV file (RIFF, RF64 or BW64, form WAVE)."""
    return head[:4] in WAV_MAGIC and head[8:12] == b"WAVE"

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
    if not path.is_file():
        raise _unreadable(path, "it is not a regular file (a device, a pipe or a socket)")
    if not os.access(path, os.R_OK):
        raise _unreadable(path, "permission denied")
    if path.stat().st_size == 0:
        raise _unreadable(path, "the file is empty")
    try:
        return open_input(str(path), _demuxer_options(path))
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
        shapes = [_stream_shape(path, s, k) for k, s in enumerate(audio)]
        return MediaInfo(content_type(container), round(duration * 1000), [c for c, _ in shapes],
                         [r for _, r in shapes])


def _stream_shape(path: Path, stream: av.AudioStream, track: int) -> tuple[int, int]:
    """(channels, sample rate) of an audio stream; a 10201 error naming the field when its header is unusable."""
    ctx = stream.codec_context
    wav = _wav_header(path) if ctx is None or ctx.channels < 1 else {}
    if ctx is None:
        why = "no decoder reads its sample format"
        if wav:
            why = (f"its WAV header declares format tag {wav['format']} with {wav['bits']} bits per sample, "
                   "which no decoder reads")
        raise _unreadable(path, f"audio track {track}: {why}")
    if ctx.channels < 1:
        raise _unreadable(path, f"audio track {track} declares {wav.get('channels', ctx.channels)} channels")
    if not MIN_SAMPLE_RATE <= ctx.sample_rate <= MAX_SAMPLE_RATE:
        raise _unreadable(path, f"audio track {track} declares a sample rate of {ctx.sample_rate} Hz "
                          f"(accepted: {MIN_SAMPLE_RATE} to {MAX_SAMPLE_RATE})")
    return ctx.channels, ctx.sample_rate


def _wav_header(path: Path) -> dict[str, int]:
    """The fields of a WAV file's fmt chunk ({} for other files), to name what is wrong with it."""
    with open(path, "rb") as f:
        head = f.read(4096)
    if not _is_wav(head):
        return {}
    pos = 12
    while pos + 24 <= len(head):
        size = int.from_bytes(head[pos + 4 : pos + 8], "little")
        if head[pos : pos + 4] == b"fmt ":
            fmt, channels, rate, _, _, bits = struct.unpack_from("<HHIIHH", head, pos + 8)
            return {"format": fmt, "channels": channels, "rate": rate, "bits": bits}
        pos += 8 + size + (size & 1)
    return {}


FINITE_BLOCK = 1 << 22  # samples checked at once (a long recording is never checked in one temporary array)


def finite(samples: np.ndarray) -> np.ndarray:
    """`samples` with NaN and infinity (a float recording may hold them) made silence; the same array when
    every sample is finite."""
    if all(np.isfinite(samples[i:i + FINITE_BLOCK]).all() for i in range(0, len(samples), FINITE_BLOCK)):
        return samples
    return np.nan_to_num(samples, nan=0.0, posinf=0.0, neginf=0.0)


# Handing memory back walks every arena of a process that holds its models (4-8 ms each time), and the pages
# handed back fault in again, zeroed, when the next recording takes them. After the work on audio of fewer bytes
# than TRIM_FROM_BYTES (two minutes of one channel at 16 kHz) it is done only once the resident set has grown by
# RESIDENT_SLACK_BYTES since memory was last handed back: many short recordings, each freeing a little in the
# arenas of the threads that worked on it, cannot pile it up.
TRIM_FROM_BYTES = 8 << 20
RESIDENT_SLACK_BYTES = 64 << 20
_resident_after_trim = [0]


def give_back_memory(audio_bytes: int | None = None) -> None:
    """Hand memory freed by large arrays back to the system: glibc's malloc keeps it in its arenas (one per
    thread that allocated), so a process's resident size would stay at its peak. Elsewhere nothing.
    `audio_bytes`: the size of the audio whose work was just let go of (None: always hand back; see
    TRIM_FROM_BYTES)."""
    trim = _malloc_trim()
    if trim is None:
        return
    if audio_bytes is not None and audio_bytes < TRIM_FROM_BYTES:
        resident = resident_bytes()  # 0 where unknown: then always handed back
        if 0 < resident < _resident_after_trim[0] + RESIDENT_SLACK_BYTES:
            _resident_after_trim[0] = min(_resident_after_trim[0], resident)  # a trim amid larger work set it high
            return
    trim(0)
    _resident_after_trim[0] = resident_bytes()


def resident_bytes() -> int:
    """This process's resident set (Linux's /proc/self/statm); 0 where it cannot be read."""
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's malloc_trim, looked up once (finding the C library runs `ldconfig -p`: milliseconds a call);
    None where the C library has none."""
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return None


def decode(path: str | Path, track: int = 0, sample_rate: int | None = ASR_RATE,
           first_s: float | None = None) -> AudioTrack:
    """Decode one audio stream to float32 PCM per channel, resampled to `sample_rate` (None keeps the original);
    with `first_s`, only about its first `first_s` seconds.

    Frames are written into one preallocated buffer, so a long file is held in memory once. A stream with more
    than MAX_CHANNELS channels, or a header that makes no sense, is a 10201 error.
    """
    path = Path(path)
    with _open(path) as container:
        streams = container.streams.audio
        if track >= len(streams):
            raise _unreadable(path, f"it has no audio track {track} ({len(streams)} found)")
        stream = streams[track]
        channels, original_rate = _stream_shape(path, stream, track)
        if channels > MAX_CHANNELS:
            raise _unreadable(path, f"audio track {track} has {channels} channels; at most {MAX_CHANNELS} are "
                              "supported, as each channel is recognised on its own")
        rate = sample_rate or original_rate
        # Packed float: FFmpeg's planar output crashes PyAV's to_ndarray from 8 channels on. Output frames of
        # RESAMPLED_FRAME samples, however small the decoder's (a WAV's are 1,024): the same samples, fewer steps.
        resampler = av.AudioResampler(format="flt", layout=stream.layout.name, rate=rate, frame_size=RESAMPLED_FRAME)
        buffer = np.zeros((channels, _estimated_samples(path, container, stream, rate)), dtype=np.float32)
        filled = 0
        try:
            for frame in container.decode(stream):
                for out in resampler.resample(frame):
                    buffer, filled = _append(buffer, filled, planes(out))
                if first_s is not None and filled >= first_s * rate:
                    break
            for out in resampler.resample(None):
                buffer, filled = _append(buffer, filled, planes(out))
        except (av.FFmpegError, ValueError) as exc:
            raise _unreadable(path, f"decoding failed: {exc}") from None
    if filled == 0:
        raise _unreadable(path, "it holds no audio samples")
    return AudioTrack(buffer[:, :filled], rate, original_rate)


def planes(frame: av.AudioFrame) -> np.ndarray:
    """A packed frame's samples as (channels, samples): to_ndarray gives them interleaved in one row."""
    return frame.to_ndarray().reshape(-1, frame.layout.nb_channels).T


def _estimated_samples(path: Path, container: av.container.InputContainer, stream: av.AudioStream,
                       rate: int) -> int:
    seconds = 0.0
    if stream.duration and stream.time_base:
        seconds = float(stream.duration * stream.time_base)
    elif container.duration:
        seconds = container.duration / av.time_base
    # A header may claim hours in a few bytes: preallocate no more than the file can hold (the buffer grows).
    seconds = min(seconds, path.stat().st_size / MIN_BYTES_PER_SECOND)
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
    return sha256_file(Path(path))
