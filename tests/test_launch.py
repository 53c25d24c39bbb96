"""`speechproc run` starts itself again with glibc's allocator on transparent huge pages where the system has
them (`cli.launch`); the other commands, other systems and an explicit opt-out start as they are."""
from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import SAMPLES
from speechproc.cli import launch
from speechproc.concurrency import TRACE_ENV

GLIBC = ("glibc", "2.36")
MADVISE = "always [madvise] never\n"


def test_glibc_with_huge_pages_starts_again_with_the_tunable():
    environment = launch.huge_pages_environment({"PATH": "/bin"}, GLIBC, MADVISE)
    assert environment == {"PATH": "/bin", "GLIBC_TUNABLES": "glibc.malloc.hugetlb=1"}


def test_the_users_own_tunables_are_kept():
    environment = launch.huge_pages_environment({"GLIBC_TUNABLES": "glibc.malloc.arena_max=2"}, GLIBC,
                                                "[always] madvise never")
    assert environment is not None
    assert environment["GLIBC_TUNABLES"] == "glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1"


@pytest.mark.parametrize("environ, libc, thp", [
    ({"GLIBC_TUNABLES": "glibc.malloc.hugetlb=0"}, GLIBC, MADVISE),  # the user's own choice
    ({"GLIBC_TUNABLES": "glibc.malloc.hugetlb=1"}, GLIBC, MADVISE),  # already started again
    ({"SPEECHPROC_HUGE_PAGES": "0"}, GLIBC, MADVISE),
    ({"SPEECHPROC_HUGE_PAGES": " Off "}, GLIBC, MADVISE),
    ({}, ("glibc", "2.31"), MADVISE),  # before the tunable
    ({}, ("", ""), MADVISE),  # musl and others
    ({}, ("glibc", "two.36"), MADVISE),
    ({}, GLIBC, "always madvise [never]"),
    ({}, GLIBC, None),  # no transparent huge pages at all
])
def test_no_start_again_where_it_cannot_help_or_is_not_wanted(environ, libc, thp):
    assert launch.huge_pages_environment(environ, libc, thp) is None


@pytest.mark.parametrize("arguments, command", [
    (["run", "calls/"], "run"), (["--version"], None), (["-h", "media", "list"], "media"), ([], None),
])
def test_the_command_is_the_first_argument_that_is_not_an_option(arguments, command):
    assert launch.command_of(arguments) == command


def expected_on_huge_pages() -> bool:
    thp = Path(launch.THP_SETTING).read_text() if Path(launch.THP_SETTING).exists() else None
    return sys.platform == "linux" and launch.huge_pages_environment({}, platform.libc_ver(), thp) is not None


def start_up_of_a_run(tmp_path: Path) -> dict:
    """The start-up span of `speechproc run` on the voicemail, run as the console script."""
    trace = tmp_path / "trace"
    trace.mkdir()
    script = Path(sys.executable).parent / "speechproc"
    environment = {key: value for key, value in os.environ.items()
                   if key not in ("GLIBC_TUNABLES", launch.SWITCH_ENV)}
    environment.update(SPEECHPROC_HOME=str(tmp_path / "home"), **{TRACE_ENV: str(trace)})
    result = subprocess.run([str(script), "run", str(SAMPLES / "voicemail.wav"), "--quiet", "--workers", "1",
                             "--out", str(tmp_path / "out")], env=environment, capture_output=True, text=True,
                            timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    assert (tmp_path / "out").is_dir()
    [events] = [[json.loads(line) for line in path.read_text().splitlines()] for path in trace.glob("trace-*.jsonl")]
    [start_up] = [event for event in events if event["name"] == "start-up"]
    return start_up


@pytest.mark.slow
def test_a_run_started_from_the_console_script_allocates_on_huge_pages_where_it_can(tmp_path):
    start_up = start_up_of_a_run(tmp_path)
    assert start_up["args"] == {"huge_pages": expected_on_huge_pages()}
    assert start_up["dur"] > 0  # measured from the process's birth, before it started again


STARTS_AGAIN = """
import os, sys
from speechproc.cli import launch
sys.argv = ["speechproc", *sys.argv[1:]]
print("started", flush=True)
launch.start_again_on_huge_pages()
print(os.environ.get("GLIBC_TUNABLES", ""))
"""


@pytest.mark.parametrize("arguments, switch, again", [
    (["run", "calls/"], "", True), (["run", "calls/"], "0", False), (["media", "list"], "", False),
])
def test_only_a_run_starts_again_and_only_when_not_told_otherwise(arguments, switch, again):
    """The process really replaces itself: the code before the start runs twice, and the tunable is there."""
    environment = {key: value for key, value in os.environ.items() if key != "GLIBC_TUNABLES"}
    environment.update(SPEECHPROC_HUGE_PAGES=switch, GLIBC_TUNABLES="glibc.malloc.arena_max=8")
    result = subprocess.run([sys.executable, "-c", STARTS_AGAIN, *arguments], env=environment,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    started_again = again and expected_on_huge_pages()
    assert lines.count("started") == (2 if started_again else 1)
    assert lines[-1] == ("glibc.malloc.arena_max=8:glibc.malloc.hugetlb=1" if started_again
                         else "glibc.malloc.arena_max=8")
