"""Decoding: every container we promise, content type from the content, length, channels, bad input."""
from __future__ import annotations

import io
import wave
from fractions import Fraction
from pathlib import Path

import av
import numpy as np
import pytest

from conftest import SAMPLES
from speechproc import errors, media


def encode(src: Path, dest: Path, codec: str, fmt: str, rate: int, seconds: float = 4.0, video: bool = False) -> Path:
    """Re-encode the first seconds of `src` with PyAV (so tests need no committed binaries per format)."""
    track = media.decode(src, sample_rate=rate)
    pcm = track.samples[:, : int(seconds * rate)]
    layout = "mono" if pcm.shape[0] == 1 else "stereo"
    with av.open(str(dest), "w", format=fmt) as out:
        if video:
            vstream = out.add_stream("mpeg4", rate=10)
            vstream.width, vstream.height, vstream.pix_fmt = 64, 48, "yuv420p"
        astream = out.add_stream(codec, rate=rate, layout=layout)
        step = 1024
        for start in range(0, pcm.shape[1], step):
            frame = av.AudioFrame.from_ndarray(np.ascontiguousarray(pcm[:, start : start + step]), format="fltp",
                                               layout=layout)
            frame.sample_rate, frame.pts, frame.time_base = rate, start, Fraction(1, rate)
            for packet in astream.encode(frame):
                out.mux(packet)
        for packet in astream.encode(None):
            out.mux(packet)
        if video:
            for n in range(int(seconds * 10)):
                img = np.full((48, 64, 3), n * 5 % 255, dtype=np.uint8)
                vframe = av.VideoFrame.from_ndarray(img, format="rgb24")
                vframe.pts = n
                for packet in vstream.encode(vframe):
                    out.mux(packet)
            for packet in vstream.encode(None):
                out.mux(packet)
    return dest


@pytest.mark.parametrize("name, codec, fmt, rate, ctype", [
    ("clip.mp3", "mp3", "mp3", 16000, "audio/mpeg"),
    ("clip.ogg", "libopus", "ogg", 48000, "audio/ogg"),
    ("clip.opus", "libopus", "opus", 48000, "audio/ogg"),
    ("clip.m4a", "aac", "ipod", 16000, "audio/mp4"),
    ("clip.flac", "flac", "flac", 16000, "audio/flac"),
])
def test_compressed_formats_decode_to_16k_float_pcm(tmp_path, name, codec, fmt, rate, ctype):
    path = encode(SAMPLES / "voicemail.wav", tmp_path / name, codec, fmt, rate)
    info = media.probe(path)
    track = media.decode(path)
    assert info.content_type == ctype
    assert track.sample_rate == 16000 and track.samples.dtype == np.float32 and track.samples.shape[0] == 1
    assert abs(track.samples.shape[1] / 16000 - 4.0) < 0.15
    assert abs(info.length_ms - 4000) < 150
    assert np.abs(track.samples).max() > 0.1  # real speech came through


def test_the_audio_track_of_a_video_is_decoded(tmp_path):
    path = encode(SAMPLES / "call.flac", tmp_path / "call.mp4", "aac", "mp4", 22050, video=True)
    info = media.probe(path)
    track = media.decode(path)
    assert info.content_type == "video/mp4"
    assert track.samples.shape[0] == 2 and abs(track.samples.shape[1] / 16000 - 4.0) < 0.15


def test_wav_and_flac_samples_keep_channels_rate_and_length():
    call = media.decode(SAMPLES / "call.flac")
    assert call.samples.shape[0] == 2
    assert call.sample_rate == 16000 and call.original_rate == 22050
    assert abs(call.samples.shape[1] - 69.595 * 16000) < 20
    assert media.probe(SAMPLES / "call.flac").content_type == "audio/flac"
    assert media.probe(SAMPLES / "voicemail.wav").content_type == "audio/x-wav"
    native = media.decode(SAMPLES / "call.flac", sample_rate=None)
    assert native.samples.shape[0] == 2 and native.sample_rate == 22050
    assert abs(native.samples.shape[1] - 69.595 * 22050) < 20


def test_content_type_comes_from_the_content_not_the_name(tmp_path):
    disguised = tmp_path / "really_flac.wav"
    disguised.write_bytes((SAMPLES / "call.flac").read_bytes())
    assert media.probe(disguised).content_type == "audio/flac"


def _error(path: Path) -> errors.SpeechprocError:
    with pytest.raises(errors.SpeechprocError) as info:
        media.decode(path)
    return info.value


def test_bad_inputs_raise_clear_errors(tmp_path):
    empty = tmp_path / "empty.wav"
    empty.write_bytes(b"")
    corrupt = tmp_path / "corrupt.mp3"
    corrupt.write_bytes(b"ID3" + bytes(range(256)) * 40)
    text = tmp_path / "notes.wav"
    text.write_text("this is not audio\n" * 50)
    silent = tmp_path / "zero.wav"
    with wave.open(str(silent), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(16000)
    assert "empty" in _error(empty).message
    assert _error(corrupt).code == errors.MEDIA_UNREADABLE
    assert _error(text).code == errors.MEDIA_UNREADABLE
    assert "no audio samples" in _error(silent).message
    assert _error(tmp_path / "missing.wav").code == errors.RESOURCE_NOT_FOUND
    assert "folder" in _error(tmp_path).message


def test_file_hash_is_stable_and_content_based(tmp_path):
    copy = tmp_path / "copy.wav"
    copy.write_bytes((SAMPLES / "voicemail.wav").read_bytes())
    assert media.file_hash(copy) == media.file_hash(SAMPLES / "voicemail.wav")


@pytest.mark.parametrize("codec, rate", [("pcm_s16le", 8000), ("pcm_mulaw", 8000), ("pcm_s24le", 22050),
                                         ("adpcm_ms", 16000)])
def test_a_wav_is_read_in_large_packets_to_the_same_samples(tmp_path, monkeypatch, codec, rate):
    path = encode(SAMPLES / "call.flac", tmp_path / f"call_{codec}.wav", codec, "wav", rate, seconds=20.0)
    with media._open(path) as container:
        packets = sum(1 for packet in container.demux(container.streams.audio[0]) if packet.size)
    assert packets <= path.stat().st_size // (media.WAV_PACKET_BYTES // 2)  # not FFmpeg's 4,096 bytes each
    large = {r: media.decode(path, sample_rate=r).samples for r in (None, 16000)}
    info = media.probe(path)
    monkeypatch.setattr(media, "_demuxer_options", lambda path: {})  # FFmpeg's own packets and probe
    for r, samples in large.items():
        assert np.array_equal(samples, media.decode(path, sample_rate=r).samples)
    assert media.probe(path) == info


class CountedReads(io.RawIOBase):
    """A file whose reads are counted."""

    def __init__(self, path):
        self.file, self.read_bytes = open(path, "rb"), 0

    def readinto(self, buffer):
        count = self.file.readinto(buffer)
        self.read_bytes += count
        return count

    def seek(self, offset, whence=io.SEEK_SET):
        return self.file.seek(offset, whence)

    def tell(self):
        return self.file.tell()

    def seekable(self):
        return True

    def readable(self):
        return True

    def close(self):
        self.file.close()
        super().close()


def bytes_read_to_open(path, options):
    with CountedReads(path) as counted:
        with media.open_input(counted, options):
            return counted.read_bytes


def test_a_wav_is_opened_from_its_header_and_first_packet(tmp_path):
    path = encode(SAMPLES / "call.flac", tmp_path / "call.wav", "pcm_s16le", "wav", 8000, seconds=60.0)
    assert path.stat().st_size > 20 * media.WAV_PACKET_BYTES
    assert bytes_read_to_open(path, media._demuxer_options(path)) <= 4 * media.WAV_PACKET_BYTES
    # larger packets alone: FFmpeg reads (and decodes) the whole minute looking for the streams' parameters
    assert bytes_read_to_open(path, {"max_size": str(media.WAV_PACKET_BYTES)}) > 20 * media.WAV_PACKET_BYTES


def test_only_a_wav_gets_the_demuxer_option(tmp_path):
    packet = str(media.WAV_PACKET_BYTES)
    assert media._demuxer_options(SAMPLES / "voicemail.wav") == {"max_size": packet, "probesize": packet}
    assert media._demuxer_options(SAMPLES / "call.flac") == {}
    short = tmp_path / "short.wav"
    short.write_bytes(b"RIFF")
    assert media._demuxer_options(short) == {}


def test_memory_is_handed_back_after_long_audio_or_once_the_process_has_grown(monkeypatch):
    trims, resident = [], [500 << 20]
    monkeypatch.setattr(media, "_malloc_trim", lambda: trims.append)
    monkeypatch.setattr(media, "resident_bytes", lambda: resident[0])
    monkeypatch.setattr(media, "_resident_after_trim", [0])
    media.give_back_memory()  # always
    assert trims == [0]
    second = 10 * 16000 * 4  # ten seconds of one channel
    resident[0] += media.RESIDENT_SLACK_BYTES // 2
    media.give_back_memory(second)  # a little freed, the process barely grown: the next recording reuses it
    assert trims == [0]
    media.give_back_memory(media.TRIM_FROM_BYTES)  # after long audio: always
    assert trims == [0, 0]
    resident[0] += media.RESIDENT_SLACK_BYTES
    media.give_back_memory(second)  # short audio, but the process has grown since the last time
    assert trims == [0, 0, 0]
    media.give_back_memory(second)
    assert trims == [0, 0, 0]
    resident[0] = 0  # unknown: handed back
    media.give_back_memory(second)
    assert trims == [0, 0, 0, 0]


@pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="the resident set is read from Linux's /proc")
def test_the_resident_set_is_read():
    assert media.resident_bytes() > 10 << 20  # this interpreter with numpy and PyAV loaded
