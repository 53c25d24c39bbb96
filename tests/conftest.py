"""Shared fixtures: an isolated state home, the sample media and its truth, one processed call per session."""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_media"
SHARED = ROOT.parent / "shared"
TRUTH = json.loads((SAMPLES / "truth.json").read_text())


def truth_for(name: str) -> dict:
    return next(r for r in TRUTH["recordings"] if r["file"] == name)


@pytest.fixture(scope="session", autouse=True)
def state_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("speechproc-home")
    os.environ["SPEECHPROC_HOME"] = str(home)
    return home


@pytest.fixture(scope="session")
def sample_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A private copy of sample_media (outputs are written beside the inputs)."""
    folder = tmp_path_factory.mktemp("samples")
    for name in ("call.flac", "voicemail.wav"):
        shutil.copy(SAMPLES / name, folder / name)
    return folder


@pytest.fixture(scope="session")
def processed(sample_copy: Path) -> dict[str, dict]:
    """Both sample recordings processed once with the default configuration: file name -> v3 media item."""
    from speechproc import api, config

    batch = api.process([sample_copy], config.validate({}), out_dir=sample_copy / "out")
    assert [i.status for i in batch.items] == ["finished", "finished"], [i.error for i in batch.items]
    return {Path(i.path).name: json.loads(Path(i.outputs["json"]).read_text()) for i in batch.items}


def invoke(*args: str) -> tuple[int, object]:
    """Run the CLI in-process: (exit code, stdout as JSON, or as text when it is not JSON)."""
    from click.testing import CliRunner

    from speechproc.cli import main

    result = CliRunner().invoke(main, list(args))
    try:
        return result.exit_code, json.loads(result.stdout)
    except json.JSONDecodeError:
        return result.exit_code, result.stdout


def write_wav(path: Path, samples, rate: int) -> Path:
    """Write float samples in [-1, 1] (shape (n,) or (channels, n)) as 16-bit PCM WAV."""
    import wave

    import numpy as np

    data = np.atleast_2d(np.asarray(samples, dtype=np.float32))
    pcm = (np.clip(data, -1, 1) * 32767).round().astype("<i2").T.copy()
    with wave.open(str(path), "wb") as w:
        w.setnchannels(data.shape[0])
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(pcm.tobytes())
    return path


@pytest.fixture(scope="session")
def downmix(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample call mixed down to one channel at its own rate: a mono recording of two speakers."""
    from speechproc.media import decode

    track = decode(SAMPLES / "call.flac", sample_rate=None)
    folder = tmp_path_factory.mktemp("downmix")
    return write_wav(folder / "call-mono.wav", track.samples.mean(axis=0), track.sample_rate)


@pytest.fixture(scope="session")
def downmix_processed(downmix: Path) -> dict:
    """The downmixed call processed with voice features on: its v3 media item."""
    from speechproc import api, config

    settings = config.validate({"speechModel": {"features": ["voiceFeatures"]}})
    batch = api.process([downmix], settings, out_dir=downmix.parent / "out")
    assert batch.items[0].status == "finished", batch.items[0].error
    item = json.loads(Path(batch.items[0].outputs["json"]).read_text())
    item["_outputs"] = batch.items[0].outputs
    return item


@pytest.fixture(scope="session")
def callcenter(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The sample call run once through `speechproc run` with configs/callcenter.yaml (every analytic)."""
    from click.testing import CliRunner

    from speechproc.cli import main

    folder = tmp_path_factory.mktemp("callcenter")
    shutil.copy(SAMPLES / "call.flac", folder / "call.flac")
    result = CliRunner().invoke(main, ["run", str(folder), "--config", str(ROOT / "configs" / "callcenter.yaml"),
                                       "--quiet"])
    assert result.exit_code == 0, result.output
    return json.loads((folder / "call.v3.json").read_text())
