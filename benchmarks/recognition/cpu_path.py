"""Which CPU path CTranslate2 takes here: what a benchmark that quotes recognised words records beside them.

CTranslate2 chooses its int8 kernels by the CPU (Intel MKL on Intel CPUs, oneDNN elsewhere, and an
instruction set), and another path may hear a word differently. `describe()` runs the recogniser in a
child process with CT2_VERBOSE=1 and ONEDNN_VERBOSE=1 and reads what CTranslate2 and oneDNN say they
chose, with the variables that steer them (CT2_USE_MKL, CT2_FORCE_CPU_ISA, ONEDNN_MAX_CPU_ISA).

Usage: python benchmarks/recognition/cpu_path.py   (prints the description as JSON)
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys

STEERING = ("CT2_USE_MKL", "CT2_FORCE_CPU_ISA", "ONEDNN_MAX_CPU_ISA")
# load the recogniser and decode a second of silence, so that oneDNN, when it is the backend, says its kernels
LOAD = ("import numpy as np; from speechproc.engines.models import load_whisper; "
        "segments, _ = load_whisper('tiny.en').transcribe(np.zeros(16000, np.float32), language='en'); list(segments)")
# what CTranslate2 logs when it loads a model, and oneDNN when it first runs, and the key each is recorded under
SAID = {"cpu": r"\] CPU: (\S+)", "isa": r"Selected ISA: (\S+)", "mkl": r"Use Intel MKL: (\S+)",
        "int8_gemm": r"GEMM_S8 backend: (\S+)", "float_gemm": r"SGEMM backend: (\S+)",
        "onednn_isa": r"onednn_verbose,info,cpu,isa:([^\n]+)"}


def describe(env: dict[str, str] | None = None) -> dict[str, object]:
    """The CPU, CTranslate2's chosen instruction set and GEMM backends, and the steering variables set, for a
    process started with `env` (default: this one's environment)."""
    env = dict(os.environ if env is None else env)
    result = subprocess.run([sys.executable, "-c", LOAD], env={**env, "CT2_VERBOSE": "1", "ONEDNN_VERBOSE": "1"},
                            capture_output=True, text=True, timeout=300)
    said = result.stdout + result.stderr
    found: dict[str, object] = {key: (m.group(1) if (m := re.search(pattern, said)) else None)
                                for key, pattern in SAID.items()}
    found["model_name"] = _cpu_model()
    found["variables"] = {name: env[name] for name in STEERING if name in env}
    return found


def _cpu_model() -> str | None:
    try:
        with open("/proc/cpuinfo") as f:
            return next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), None)
    except OSError:
        return None


if __name__ == "__main__":
    print(json.dumps(describe(), indent=2))
