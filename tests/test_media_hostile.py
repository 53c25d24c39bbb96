"""Hostile and unusual input for decoding: many channels, hand-made WAV headers that lie or make no sense.

Decoding that could crash the interpreter (a segfault in the decoder) runs in a child process, so that a
crash fails the test instead of killing the test run.
"""
from __future__ import annotations

import json
import struct
import subprocess
import sys
import tracemalloc
from pathlib import Path

import av
import numpy as np
import pytest

from conftest import write_wav
from speechproc import api, errors, media
from speechproc.config import v3 as config

TONE_HZ = 300


def amplitudes(channels: int) -> np.ndarray:
    """A distinct peak level per channel, so that a channel decoded in the wrong place is noticed."""
    return 0.02 + 0.75 * np.arange(channels) / max(channels - 1, 1)


def tones(path: Path, channels: int, rate: int = 16000, seconds: float = 1.0) -> Path:
    """A WAV file whose channel i is a sine of peak amplitudes(channels)[i]."""
    t = np.arange(int(rate * seconds)) / rate
    return write_wav(path, amplitudes(channels)[:, None] * np.sin(2 * np.pi * TONE_HZ * t), rate)


def surround_flac(path: Path, layout: str = "7.1", rate: int = 16000) -> Path:
    """Like tones(), as FLAC with a named channel layout (written packed: planar crashes from 8 channels)."""
    channels = av.AudioLayout(layout).nb_channels
    t = np.arange(rate) / rate
    pcm = (amplitudes(channels)[:, None] * np.sin(2 * np.pi * TONE_HZ * t) * 32767).astype(np.int16)
    with av.open(str(path), "w", format="flac") as out:
        stream = out.add_stream("flac", rate=rate, layout=layout)
        frame = av.AudioFrame.from_ndarray(np.ascontiguousarray(pcm.T).reshape(1, -1), format="s16", layout=layout)
        frame.sample_rate = rate
        for packet in [*stream.encode(frame), *stream.encode(None)]:
            out.mux(packet)
    return path


FIELDS = {"format": (20, "<H"), "channels": (22, "<H"), "rate": (24, "<I"), "byte rate": (28, "<I"),
          "bits": (34, "<H"), "data size": (40, "<I")}  # offset in the 44-byte header, struct format


def wav_with(**fields: int) -> bytes:
    """A valid 44-byte RIFF/WAVE header (mono, 16 kHz, 16-bit PCM) and a quarter second of a tone, with the
    named header fields (FIELDS, spaces as underscores) overwritten."""
    data = (0.3 * 32767 * np.sin(2 * np.pi * TONE_HZ * np.arange(4000) / 16000)).astype("<i2").tobytes()
    wav = bytearray(b"RIFF" + struct.pack("<I", 36 + len(data)) + b"WAVE"
                    + b"fmt " + struct.pack("<IHHIIHH", 16, 1, 1, 16000, 32000, 2, 16)
                    + b"data" + struct.pack("<I", len(data)) + data)
    for name, value in fields.items():
        offset, fmt = FIELDS[name.replace("_", " ")]
        struct.pack_into(fmt, wav, offset, value)
    return bytes(wav)


def in_child(script: str, *args: str) -> dict:
    """Run `script` in a fresh interpreter; what it prints last, as JSON. A crash fails the calling test."""
    done = subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"the child exited with {done.returncode} (negative: killed by that signal)\n" \
                                 f"{done.stderr[-2000:]}"
    return json.loads(done.stdout.strip().splitlines()[-1])


DECODE = """
import json, sys
import numpy as np
from speechproc import errors, media
try:
    track = media.decode(sys.argv[1])
except errors.SpeechprocError as exc:
    print(json.dumps({"code": exc.code, "message": exc.message}))
else:
    print(json.dumps({"shape": track.samples.shape, "rate": track.sample_rate,
                      "peaks": np.abs(track.samples).max(axis=1).tolist()}))
"""


@pytest.mark.parametrize("channels, rate", [(8, 16000), (16, 8000), (32, 16000)])
def test_many_channels_decode_each_channel_in_its_place(tmp_path, channels, rate):
    path = tones(tmp_path / f"{channels}ch.wav", channels, rate)
    out = in_child(DECODE, str(path))
    assert "code" not in out, out
    assert out["rate"] == 16000 and out["shape"][0] == channels
    assert abs(out["shape"][1] - 16000) < 20
    np.testing.assert_allclose(out["peaks"], amplitudes(channels), atol=0.01)


def test_a_named_surround_layout_keeps_its_channel_order(tmp_path):
    out = in_child(DECODE, str(surround_flac(tmp_path / "surround.flac")))
    assert "code" not in out, out
    assert out["shape"] == [8, 16000]
    np.testing.assert_allclose(out["peaks"], amplitudes(8), atol=0.01)


@pytest.mark.parametrize("channels, real", [
    (33, True),  # samples on 33 channels
    (64, False),  # a mono file whose header claims 64 channels
])
def test_more_channels_than_the_limit_fail_with_10201(tmp_path, channels, real):
    path = tmp_path / f"{channels}ch.wav"
    if real:
        tones(path, channels)
    else:
        path.write_bytes(wav_with(channels=channels))
    out = in_child(DECODE, str(path))
    assert out.get("code") == errors.MEDIA_UNREADABLE, out
    assert f"{channels} channels" in out["message"] and f"at most {media.MAX_CHANNELS}" in out["message"]


CHANNELS = """
import json, sys
from pathlib import Path
from speechproc.conversation import Conversation
from speechproc.stages.options import IngestOptions
from speechproc.stages.recognition import ingest
conv = Conversation("media")
channels = ingest.build_channels(Path(sys.argv[1]), IngestOptions(), conv)
print(json.dumps([[c.speaker_name, c.samples.shape[0]] for c in channels]))
"""


def test_each_of_many_channels_is_a_speaker_of_its_own(tmp_path):
    path = tones(tmp_path / "16ch.wav", 16)
    out = in_child(CHANNELS, str(path))
    assert out == [[f"Speaker{i + 1}", 16000] for i in range(16)]


BATCH = """
import json, sys
from pathlib import Path
from speechproc import api, config
batch = api.process([sys.argv[1]], config.validate({}), out_dir=Path(sys.argv[1]) / "out")
print(json.dumps({Path(i.path).name: [i.status, i.error] for i in batch.items}))
"""


@pytest.mark.slow  # loads Whisper
def test_a_batch_with_many_channel_recordings_finishes_them(tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    tones(folder / "eight.wav", 8)
    tones(folder / "sixteen.wav", 16)
    out = in_child(BATCH, str(folder))
    assert out == {"eight.wav": ["finished", None], "sixteen.wav": ["finished", None]}


MALFORMED = [
    ("bits0.wav", wav_with(bits=0), "0 bits per sample"),
    ("channels0.wav", wav_with(channels=0), "declares 0 channels"),
    ("channels65535.wav", wav_with(channels=65535), "declares 65535 channels"),
    ("float16.wav", wav_with(format=3), "format tag 3 with 16 bits per sample"),
    ("rate1.wav", wav_with(rate=1), "sample rate of 1 Hz"),
]


@pytest.mark.parametrize("name, header, problem", MALFORMED, ids=[m[0] for m in MALFORMED])
def test_malformed_headers_fail_with_10201_naming_the_problem(tmp_path, name, header, problem):
    path = tmp_path / name
    path.write_bytes(header)
    for read in (media.probe, media.decode):
        with pytest.raises(errors.SpeechprocError) as info:
            read(path)
        assert info.value.code == errors.MEDIA_UNREADABLE
        assert "malformed or unreadable" in info.value.message and problem in info.value.message


@pytest.mark.slow  # loads Whisper
def test_a_batch_with_malformed_headers_still_finishes_the_good_file(tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    for name, header, _ in MALFORMED[:3]:
        (folder / name).write_bytes(header)
    tones(folder / "good.wav", 1)
    batch = api.process([folder], config.validate({}), out_dir=tmp_path / "out")
    items = {Path(i.path).name: i for i in batch.items}
    assert items["good.wav"].status == "finished"
    for name, _, problem in MALFORMED[:3]:
        assert items[name].status == "failed"
        [error] = json.loads(Path(items[name].outputs["json"]).read_text())["errors"]
        assert error["code"] == errors.MEDIA_UNREADABLE and problem in error["error"]


def test_a_header_claiming_hours_does_not_make_decode_allocate_them(tmp_path):
    path = tmp_path / "liar.wav"
    path.write_bytes(wav_with(byte_rate=1, data_size=0xFFFFFFF0))  # 0.25 s of samples the header says last hours
    tracemalloc.start()
    try:
        track = media.decode(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert abs(track.samples.shape[1] - 4000) < 20
    assert peak < 50 * 2**20, f"decoding a quarter second allocated {peak / 2**20:.0f} MiB"


def with_info_tag(wav: bytes, value: bytes) -> bytes:
    """`wav` with a RIFF LIST/INFO chunk holding a title of the given raw bytes, before its data chunk."""
    tag = b"INAM" + struct.pack("<I", len(value)) + value + b"\0" * (len(value) & 1)
    info = b"LIST" + struct.pack("<I", 4 + len(tag)) + b"INFO" + tag
    body = wav[12:36] + info + wav[36:]
    return b"RIFF" + struct.pack("<I", 4 + len(body)) + b"WAVE" + body


def test_a_tag_of_invalid_utf8_does_not_make_a_file_unreadable(tmp_path):
    """PyAV before 19 raises at open on such a tag unless told otherwise; 19 keeps the bytes as surrogates."""
    from speechproc.formats import audio

    path = tmp_path / "tagged.wav"
    path.write_bytes(with_info_tag(wav_with(), b"\xff\xfe caf\xe9 \xc3("))
    with media.open_input(str(path)) as container:
        assert container.metadata.get("title")  # the tag is there and was read
    assert media.probe(path).tracks == [1]
    assert abs(media.decode(path).samples.shape[1] - 4000) < 20
    samples, rate, _, _ = audio.read_pcm(path)
    assert (samples.shape, rate) == ((1, 4000), 16000)
