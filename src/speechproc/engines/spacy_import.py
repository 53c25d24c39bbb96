"""spaCy without torch where its pipeline needs none.

thinc, spaCy's machine-learning layer, imports torch whenever torch is installed, though a pipeline of
spaCy's own layers (the bundled English one among them) never calls it: 1.2 s of CPU and about 200 MB in
every process that parses. `import_for` imports spaCy with torch hidden from thinc alone (any other import
of torch, on any thread, goes on as usual), unless the pipeline's configuration names a torch layer or
cannot be read.
"""
from __future__ import annotations

import importlib.abc
import importlib.util
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType

from speechproc.errors import MODEL_UNAVAILABLE, SpeechprocError

TORCH_MARKS = ("torch", "transformer")  # in a pipeline's config.cfg: a layer that runs on torch
HIDDEN_FROM = "thinc.compat"  # the one module that imports torch for thinc


def config_files(model: str | Path) -> list[Path]:
    """The config.cfg files of a pipeline folder, or of an installed pipeline package (spaCy's packages keep
    it in a folder named after their version), found without importing spaCy."""
    if isinstance(model, Path):
        folders = [model]
    else:
        try:
            spec = importlib.util.find_spec(model)
        except (ImportError, ValueError):
            return []
        if spec is None or not spec.submodule_search_locations:
            return []
        folders = [Path(location) for location in spec.submodule_search_locations]
    return [found for folder in folders for found in [folder / "config.cfg", *sorted(folder.glob("*/config.cfg"))]
            if found.is_file()]


def needs_torch(model: str | Path) -> bool:
    """Whether the pipeline may run on torch: its config names a torch or transformer layer, or there is no
    config to read."""
    files = config_files(model)
    if not files:
        return True
    try:
        text = " ".join(found.read_text(encoding="utf-8", errors="replace").lower() for found in files)
    except OSError:
        return True
    return any(mark in text for mark in TORCH_MARKS)


class _HiddenTorch(importlib.abc.MetaPathFinder):
    """Makes `import torch` fail while HIDDEN_FROM's own code runs (its import), and nowhere else."""

    def find_spec(self, name: str, path=None, target=None):
        if name == "torch" or name.startswith("torch."):
            frame: FrameType | None = sys._getframe(1)  # up to the module whose code is running: importlib's and any hook's
            while frame is not None and frame.f_code.co_name != "<module>":  # functions are passed over
                frame = frame.f_back
            if frame is not None and frame.f_globals.get("__name__") == HIDDEN_FROM:
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


@contextmanager
def torch_hidden_from_thinc() -> Iterator[None]:
    finder = _HiddenTorch()
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)


def _torch_installed() -> bool:
    try:
        return "torch" in sys.modules or importlib.util.find_spec("torch") is not None
    except (ImportError, ValueError):
        return False


def import_for(model: str | Path, shown_name: str) -> None:
    """Import spaCy for the pipeline `model` (a package name or folder): with torch hidden from thinc where
    the pipeline needs none and thinc is imported here first. A pipeline that needs torch, in a process
    whose thinc was imported without it, is a clear error (thinc keeps what it found at import).
    ImportError where spaCy is not installed."""
    thinc_compat = sys.modules.get(HIDDEN_FROM)
    if thinc_compat is None:
        if "torch" not in sys.modules and not needs_torch(model):
            with torch_hidden_from_thinc():
                import thinc.compat  # noqa: F401
    elif not getattr(thinc_compat, "has_torch", True) and needs_torch(model) and _torch_installed():
        raise SpeechprocError(MODEL_UNAVAILABLE, f"spaCy model '{shown_name}' may run on torch, but spaCy was "
                              "loaded without torch in this process for a pipeline that needs none; run it "
                              "in a process of its own", status=500)
    import spacy  # noqa: F401
