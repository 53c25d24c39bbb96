"""The redacted copy of recordings with many channels: bit-exact outside the regions, never a crash."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from conftest import write_wav
from speechproc.errors import SpeechprocError
from speechproc.formats import audio

_ROUND_TRIP = """
import sys
import numpy as np
from speechproc.formats import audio
source, target, fmt = sys.argv[1:]
samples, rate, layout, wide = audio.read_pcm(source)
audio.redact(source, target, [(200, 400, 270, 0.5)], fmt)
again, *_ = audio.read_pcm(target)
outside = np.r_[0:rate * 200 // 1000, rate * 400 // 1000:samples.shape[1]]
assert again.shape == samples.shape, (again.shape, samples.shape)
assert np.array_equal(again[:, outside], samples[:, outside])
assert not np.array_equal(again, samples)
print("ok", samples.shape[0])
"""


def _channels(n: int, rate: int = 8000) -> np.ndarray:
    t = np.arange(rate) / rate
    return np.stack([0.05 * (i + 1) / n * np.sin(2 * np.pi * (150 + 40 * i) * t) for i in range(n)])


@pytest.mark.parametrize("channels, fmt", [(2, "wav"), (8, "wav"), (8, "flac"), (16, "wav")])
def test_redacting_many_channels_keeps_every_sample_outside_the_regions(tmp_path, channels, fmt):
    source = write_wav(tmp_path / "in.wav", _channels(channels), 8000)
    # in a child process: a crash of the decoder must fail this test, not kill the test run
    done = subprocess.run([sys.executable, "-c", _ROUND_TRIP, str(source), str(tmp_path / f"out.{fmt}"), fmt],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    assert done.stdout.split() == ["ok", str(channels)]


def test_flac_cannot_hold_more_than_eight_channels_and_says_so(tmp_path):
    source = write_wav(tmp_path / "in.wav", _channels(9), 8000)
    with pytest.raises(SpeechprocError) as err:
        audio.redact(source, tmp_path / "out.flac", [(0, 100, 270, 0.5)], "flac")
    assert "at most 8 channels" in err.value.message and "fileFormat" in err.value.message
    assert not Path(tmp_path / "out.flac").exists() and not list(tmp_path.glob(".*tmp"))
