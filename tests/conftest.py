"""Shared fixtures: an isolated state home, the sample media and its truth, one processed call per session,
the call's known words through every analysis stage, a local HTTP receiver for callbacks; and the `slow`
marker, given and checked here.

`slow` marks every test that runs a heavy model (Whisper, a speaker encoder, spaCy, MiniLM) or takes
seconds for another reason; `pytest -m "not slow"` (make test-fast) runs the rest. Tests are marked in their
own module, and only there: `@pytest.mark.slow` on the test (on a test that uses a fixture running a heavy
model too, such as `processed`), `pytest.param(..., marks=pytest.mark.slow)` for one case, `pytestmark` for a
whole module. A test that is not marked and still loads one of those models (in its body or in a fixture it
sets up) fails and says so in a run that selects by the marker (-m "not slow"), and is reported as a warning
in other runs.
"""
from __future__ import annotations

import functools
import json
import os
import shutil
import sys
import threading
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

from receivers import Receiver, receiving

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


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A state folder of the test's own: the catalog, keys and downloads the commands use hold its runs only."""
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.setenv("SPEECHPROC_HOME", str(folder))
    return folder


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
    from speechproc import api
    from speechproc.config import v3 as config

    batch = api.process([sample_copy], config.validate({}), out_dir=sample_copy / "out")
    assert [i.status for i in batch.items] == ["finished", "finished"], [i.error for i in batch.items]
    return {Path(i.path).name: json.loads(Path(i.outputs["json"]).read_text()) for i in batch.items}


def invoke(*args: str) -> tuple[int, object]:
    """Run the CLI in-process: (exit code, stdout as JSON, or as text when it is not JSON)."""
    from click.testing import CliRunner

    from speechproc.cli.commands import main

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
    from speechproc import api
    from speechproc.config import v3 as config

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

    from speechproc.cli.commands import main

    folder = tmp_path_factory.mktemp("callcenter")
    shutil.copy(SAMPLES / "call.flac", folder / "call.flac")
    result = CliRunner().invoke(main, ["run", str(folder), "--config", str(ROOT / "configs" / "callcenter.yaml"),
                                       "--quiet"])
    assert result.exit_code == 0, result.output
    return json.loads((folder / "call.v3.json").read_text())


@pytest.fixture(scope="session")
def truth_call(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The sample call's known words (truth.json, each turn's words spread over its time) in place of recognition,
    through every later stage of the pipeline with configs/callcenter.yaml, the shipped example categories
    (allCategories) and keyword groups, and analytic indexing; in a catalog of its own (`_catalog`), so no
    definition leaks into the session's. Analytics that depend on the words are tested on this: the same
    answers on every CPU, whatever a speech model hears."""
    import yaml

    from speechproc import api
    from speechproc.config import options
    from speechproc.config import v3 as config
    from speechproc.config.resolving import resolve
    from speechproc.conversation import Conversation, MediaFacts
    from speechproc.formats import v3json
    from speechproc.stages import pipeline
    from speechproc.store.collection import corpus
    from speechproc.store.database.catalog import Catalog
    from text_helpers import truth_words

    configs = ROOT / "configs"
    raw = yaml.safe_load((configs / "callcenter.yaml").read_text())
    raw |= {"categories": [{"allCategories": True}],
            "spotting": {"groups": [{"groupName": "billing"}, {"groupName": "churn"}]},
            "publish": {"enableAnalyticIndexing": True}}
    path = tmp_path_factory.mktemp("truth-call") / "catalog.sqlite3"
    with Catalog(path) as catalog:
        for kind, folder in (("category", "categories"), ("group", "groups")):
            for definition in sorted((configs / folder).glob("*.yaml")):
                api.put_definition(kind, definition.stem, yaml.safe_load(definition.read_text()), catalog)
        settings = resolve(config.validate(raw), catalog)
        conv = Conversation("00000000-0000-4000-8000-0000000000ca", language=settings.language)
        pipeline.analyse(SAMPLES / "call.flac", options.build(settings), conv, lambda *_: None,
                         words=truth_words(truth_for("call.flac")))
        if settings.analytic_indexing:
            corpus.index(catalog, conv)
    item = MediaFacts(conv.media_id, "finished", v3json.utc_now(), v3json.utc_now(), conv.content_type,
                     conv.length_ms, warnings=conv.warnings)
    return {**v3json.media_item(item, conv), "_catalog": str(path)}


# ----------------------------------------------------------------------------- the slow marker

# Where the heavy models are loaded (speechproc.engines.models); watched while a test that is not slow runs.
HEAVY_LOADERS = {"load_whisper": "Whisper", "load_voice_encoder": "the speaker encoder", "load_campplus": "CAM++",
                 "load_spacy": "spaCy", "load_sentence_encoder": "MiniLM",
                 "load_language_model": "the insights language model"}

_unmarked: list[pytest.Item] = []  # the test now running, when it is not marked slow
_loaded: list[str] = []  # heavy models it loaded


def _watch(what: str, loader):
    from speechproc.stages.pipeline import WARM_UP_THREAD

    @functools.wraps(loader)
    def watched(*args, **kwargs):
        result = loader(*args, **kwargs)  # a model that fails to load was not run
        # the background loads that real recognition starts (a slow test's) may end while the next test runs
        if _unmarked and what not in _loaded and threading.current_thread().name != WARM_UP_THREAD:
            _loaded.append(what)
        return result
    return watched


def pytest_configure(config: pytest.Config) -> None:
    from speechproc.engines import models

    for name, what in HEAVY_LOADERS.items():
        original = getattr(models, name)
        watched = _watch(what, original)
        setattr(models, name, watched)
        for module in list(sys.modules.values()):  # modules that imported it before this ran
            if getattr(module, "__name__", "").startswith("speechproc.") and getattr(module, name, None) is original:
                setattr(module, name, watched)


def _checked(item: pytest.Item):
    if item.get_closest_marker("slow") is None:
        _unmarked[:] = [item]
    _loaded.clear()
    try:
        yield
    finally:
        _unmarked.clear()
    if _loaded:
        message = f"{item.nodeid} runs {', '.join(_loaded)} but is not marked slow: mark it @pytest.mark.slow"
        if "slow" in (item.config.option.markexpr or ""):  # a run that selects by speed: it must be right
            pytest.fail(message, pytrace=False)
        warnings.warn(pytest.PytestWarning(message), stacklevel=1)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item):
    yield from _checked(item)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item):
    yield from _checked(item)


@pytest.fixture
def catalog(tmp_path: Path):
    """A private, empty catalog (tests that store definitions or deliveries keep them to themselves)."""
    from speechproc.store.database.catalog import Catalog

    with Catalog(tmp_path / "catalog.sqlite3") as cat:
        yield cat


@pytest.fixture(scope="module")
def receiver() -> Iterator[Receiver]:
    """A local HTTP receiver for callbacks (tests/receivers.py), shared by the tests of a module so that a
    module's processed call can send to it: each test tells its requests apart by path, and says how the
    paths it uses answer. Closed after the module, held requests let go."""
    with receiving() as server:
        yield server
