"""Embeddings of fixed texts (a taxonomy's descriptions) kept on disk, so that no process encodes them again.

One small `.npz` file per entry in `vectors/` of the state folder, named by the SHA-256 of everything
the numbers depend on: the texts and how they were grouped into calls of the encoder, the encoder's
files (path, size and modification time of each), and the numeric library that ran it (torch's version, the
CPU instructions it uses, the processor and the instructions it offers, the settings that choose kernels:
embeddings computed on one CPU path are not bit for bit another's). A file is written whole or not at all (`paths.atomic_path`),
so that two processes filling the same entry at once each leave a complete one. The arrays read back are
the very arrays that were computed: a run that reads them gives the same results, to the byte, as one
that encodes the texts itself.

Anything wrong with an entry (unreadable, truncated, other arrays than expected) makes it computed again
and rewritten; a state folder that cannot be written leaves the entry computed each time. At most KEEP
entries are kept: the least recently written ones go when a new one is written.
"""
from __future__ import annotations

import hashlib
import json
import logging
import os
import platform
import zipfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from speechproc.paths import atomic_path, state_home

FORMAT = 1  # raised whenever what an entry holds, or how its key is made, changes
KEEP = 32
FOLDER = "vectors"

log = logging.getLogger(__name__)


def folder_fingerprint(folder: Path) -> list[tuple[str, int, int]] | None:
    """(name, size, modification time in ns) of each file of a model folder, in name order; None when it is
    not a folder (a model name that a library resolves by itself: nothing on disk says when it changed)."""
    if not folder.is_dir():
        return None
    found = []
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            stat = path.stat()
            found.append((path.relative_to(folder).as_posix(), stat.st_size, stat.st_mtime_ns))
    return found


# Settings of the numeric libraries that choose which kernels run, and so how sums are rounded.
KERNEL_SETTINGS = ("ATEN_CPU_CAPABILITY", "MKL_CBWR", "MKL_ENABLE_INSTRUCTIONS", "MKL_DEBUG_CPU_TYPE",
                   "ONEDNN_MAX_CPU_ISA", "DNNL_MAX_CPU_ISA")


def numeric_library() -> dict[str, str]:
    """What, besides the model and the texts, decides the last bits of an embedding: torch's version and the
    instructions it uses, the processor (its name and the instructions it offers, which a virtual machine may
    hide), and the settings that steer the kernels' choice."""
    import torch

    cpu: dict[str, str] = {}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key.strip() in ("model name", "flags", "vendor_id") and key.strip() not in cpu:
                    cpu[key.strip()] = value.strip()
    except OSError:
        pass
    return {"torch": torch.__version__, "capability": torch.backends.cpu.get_cpu_capability(),
            "machine": platform.machine(), "processor": cpu.get("model name") or platform.processor(),
            "vendor": cpu.get("vendor_id", ""),
            "instructions": hashlib.sha256(cpu.get("flags", "").encode()).hexdigest()[:16],
            **{name: os.environ.get(name, "") for name in KERNEL_SETTINGS}}


def encoder_model(location: Path | None) -> dict | None:
    """What names an encoder in an entry's key: its folder, that folder's files and the numeric library; None
    for an encoder that is not a folder on disk (never cached)."""
    if location is None:
        return None
    return {"location": str(location.resolve()), "files": folder_fingerprint(location), **numeric_library()}


def entry_key(groups: Sequence[Sequence[str]], model: object) -> str:
    """The name of the entry for these groups of texts (one call of the encoder each) under `model` (any
    JSON-able description of the encoder and what runs it)."""
    material = json.dumps({"format": FORMAT, "groups": [list(g) for g in groups], "model": model},
                          sort_keys=True, ensure_ascii=True)
    return hashlib.sha256(material.encode("utf-8")).hexdigest()


def _read(path: Path, count: int) -> list[np.ndarray] | None:
    try:
        with np.load(path, allow_pickle=False) as stored:
            arrays = [stored[f"group{k}"] for k in range(count)]
            if len(stored.files) != count:
                return None
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as exc:
        log.info("vector cache entry %s is unreadable (%s): computed again", path.name, exc)
        return None
    return arrays


def _write(path: Path, arrays: list[np.ndarray]) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with atomic_path(path) as tmp:
            with open(tmp, "wb") as f:
                named: dict[str, Any] = {f"group{k}": a for k, a in enumerate(arrays)}
                np.savez(f, **named)
                f.flush()
                os.fsync(f.fileno())
        _prune(path.parent)
    except OSError as exc:
        log.info("vector cache entry %s not written (%s)", path.name, exc)


def _prune(folder: Path) -> None:
    entries = []
    for path in folder.glob("*.npz"):
        try:
            entries.append((path.stat().st_mtime_ns, path))
        except OSError:
            continue
    for _, path in sorted(entries, reverse=True)[KEEP:]:
        path.unlink(missing_ok=True)


def cached_groups(groups: Sequence[Sequence[str]], model: object | None,
                  encode: Callable[[list[str]], np.ndarray], folder: Path | None = None) -> list[np.ndarray]:
    """`encode(list(group))` for each group, read from the cache when an entry has them, else computed and
    stored. `model` None: nothing identifies the encoder on disk, so nothing is cached."""
    if model is None:
        return [encode(list(group)) for group in groups]
    path = (folder or state_home() / FOLDER) / f"{entry_key(groups, model)}.npz"
    arrays = _read(path, len(groups))
    if arrays is not None and all(len(a) == len(g) for a, g in zip(arrays, groups)):
        return arrays
    arrays = [encode(list(group)) for group in groups]
    _write(path, arrays)
    return arrays
