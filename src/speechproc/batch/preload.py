"""Models loaded once per machine: the process that forks the workers loads them first, and the workers share them.

`LocalPool` starts its workers from multiprocessing's fork server, a fresh interpreter that imports this
module before it forks any worker. Where the pool asked for it (`preload_file`: the run's options, in a private
temporary file named by SPEECHPROC_PRELOAD), importing this module loads
the models of the later stages that will run and whose loading starts no thread (`pipeline.preload`: the
parser, the sentence encoder, the taxonomy's embeddings, VADER), so that the workers forked afterwards
find them in memory, share their pages copy-on-write, and do not each spend the seconds of CPU that
loading them costs. The recogniser, the insights model and the speaker models are not loaded here: their
runtimes start threads, which a fork does not copy. Nothing here computes a result: the numbers a worker
gets from a shared model are those it would get from its own (`concurrency.one_thread_each`).

A load that fails here is left to the worker, which loads the model again when its stage starts and
reports the error against the stage.
"""
from __future__ import annotations

import gc
import os
import pickle
import stat
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from speechproc.stages.options import Options

PRELOAD_ENV = "SPEECHPROC_PRELOAD"
THREAD_ENVS = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")
REQUEST_PREFIX, REQUEST_SUFFIX = "speechproc-preload-", ".pickle"


def preload_file(options: Options) -> Path:
    """A private temporary file holding what the fork server is to load (read, then removed, by `load_named`)."""
    handle, name = tempfile.mkstemp(prefix=REQUEST_PREFIX, suffix=REQUEST_SUFFIX)  # mode 0600
    with os.fdopen(handle, "wb") as f:
        pickle.dump(options, f, protocol=pickle.HIGHEST_PROTOCOL)
    return Path(name)


def _is_request(path: Path) -> bool:
    """Whether `path` is a file `preload_file` made: in the temporary folder, named as it names them, a regular
    file of this user that no one else may read. Anything else the variable might name (a leftover setting,
    a mistake) is neither read nor removed."""
    if path.parent != Path(tempfile.gettempdir()) or not path.name.startswith(REQUEST_PREFIX) \
            or path.suffix != REQUEST_SUFFIX:
        return False
    try:
        found = path.lstat()
    except OSError:
        return False
    return stat.S_ISREG(found.st_mode) and found.st_uid == os.getuid() and not found.st_mode & 0o077


def load_named() -> bool:
    """Load what the file SPEECHPROC_PRELOAD names asks for, remove the file, and freeze the objects made so far
    out of the garbage collector's reach (so that its passes do not write to, and so copy, the pages the
    workers share). Whether anything was loaded; nothing where the variable is not set or the file is gone."""
    name = os.environ.pop(PRELOAD_ENV, "")
    if not name or not _is_request(Path(name)):
        return False
    # One thread for every native library loaded from now on (they read these once, as they load): no thread
    # pool is started here for a fork to leave behind half copied. A worker sets its own count
    # (`workers.prepare_worker`), and computes on one thread while it analyses anyway.
    for variable in THREAD_ENVS:
        os.environ[variable] = "1"
    try:
        data = Path(name).read_bytes()
        os.unlink(name)
        options = pickle.loads(data)
    except Exception:  # gone, unreadable: the workers load for themselves
        return False
    from speechproc.stages.options import Options

    if not isinstance(options, Options):
        return False
    from speechproc.concurrency import traced

    try:
        from speechproc.stages.pipeline import preload

        with traced("preload models"):
            preload(options)
    except Exception:  # noqa: S110 -- the stage loads the model again and reports the error itself
        pass
    gc.freeze()
    return True


load_named()  # imported by the fork server, which is started with SPEECHPROC_PRELOAD set
