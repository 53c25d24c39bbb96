"""Text classifiers that users register: scikit-learn pipelines saved with skops, loaded safely.

A model file is never unpickled. skops lists the types the file would create beyond its own trusted
defaults; of those only scikit-learn classes and NumPy scalar types are accepted. A function (even a
builtin such as eval) or a class from anywhere else refuses the file.
A registered model must be a binary classifier that takes a list of texts.
"""
from __future__ import annotations

import re
import shutil
import uuid
from functools import lru_cache
from pathlib import Path
from typing import Any

from speechproc import errors as E
from speechproc.paths import atomic_path, state_home

TRUSTED = re.compile(r"^(sklearn\.[\w.]*\.[A-Z]\w*|numpy\.(u?int\d+|float\d+|bool_|str_|dtype))$")
PROBE = ["thank you for calling, how can I help you today"]


def _invalid(message: str) -> E.ConfigurationError:
    return E.ConfigurationError(E.INVALID_VALUE, message)


def folder() -> Path:
    path = state_home() / "classifiers"
    path.mkdir(parents=True, exist_ok=True)
    return path


def beyond_skops_defaults(path: Path) -> list[str]:
    """The types of a skops file that skops does not trust by default."""
    from skops.io import get_untrusted_types

    try:
        return get_untrusted_types(file=path)
    except Exception as exc:  # a zip, JSON or schema error: not a skops file
        raise _invalid(f"{path} is not a skops model file ({type(exc).__name__}: {exc}); save the model with "
                       "skops.io.dump") from None


def load_checked(path: Path) -> Any:
    """Load a skops model whose types are all trusted, and check it is a binary text classifier."""
    from skops.io import load

    extra = beyond_skops_defaults(path)
    refused = [t for t in extra if not TRUSTED.match(t)]
    if refused:
        raise _invalid(f"{path} holds types that are not trusted: {', '.join(refused)} (only scikit-learn "
                       "classes and NumPy scalar types are loaded)")
    try:
        model = load(path, trusted=extra)
    except Exception as exc:
        raise _invalid(f"{path} could not be loaded: {type(exc).__name__}: {exc}") from None
    classes = getattr(model, "classes_", None)
    if classes is None or len(classes) != 2:
        raise _invalid(f"{path}: the model is not a fitted binary classifier (it needs classes_ with two classes)")
    if not hasattr(model, "predict_proba"):
        raise _invalid(f"{path}: the model has no predict_proba")
    try:
        model.predict_proba(PROBE)
    except Exception as exc:
        raise _invalid(f"{path}: the model does not classify a list of texts ({type(exc).__name__}: {exc})") from None
    return model


def stored_path(name: str) -> Path:
    return folder() / f"{name}.skops"


def install(name: str, source: Path, previous: dict[str, Any] | None, display_name: str | None) -> dict[str, Any]:
    """Check a model file and copy it into the state folder; return the classifier definition to store."""
    if not source.is_file():
        raise _invalid(f"{source}: no such model file")
    model = load_checked(source)
    with atomic_path(stored_path(name)) as tmp:
        shutil.copyfile(source, tmp)
    _model.cache_clear()
    version = int(previous["classifierVersion"]) + 1 if previous else 1
    return {
        "classifierId": previous["classifierId"] if previous else str(uuid.uuid4()),
        "classifierName": name,
        "classifierDisplayName": display_name or (previous or {}).get("classifierDisplayName") or name,
        "classifierVersion": str(version),
        "classifierType": "binary",
        "classes": [str(c) for c in model.classes_],
    }


@lru_cache(maxsize=32)
def _model(path: str, _mtime: int) -> Any:
    return load_checked(Path(path))


def model(name: str) -> Any:
    """The stored model of a registered classifier (loaded once per process and file version)."""
    path = stored_path(name)
    if not path.is_file():
        raise E.SpeechprocError(E.MODEL_UNAVAILABLE, f"classifier {name!r} has no model file in {folder()}", 500)
    return _model(str(path), path.stat().st_mtime_ns)


def predict(model: Any, text: str) -> tuple[int, str, float]:
    """(predicted class index, its label, its probability) for one transcript."""
    probabilities = model.predict_proba([text])[0]
    index = int(probabilities.argmax())
    return index, str(model.classes_[index]), round(float(probabilities[index]), 4)
