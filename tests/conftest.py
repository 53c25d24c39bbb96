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
