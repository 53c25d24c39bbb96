"""How the `speechproc` console script starts: `speechproc run` on huge pages where the system has them.

The recogniser's working buffers are large and short-lived: every batch allocates and frees tens of
megabytes, which glibc's allocator maps and unmaps each time, and the kernel hands back as zeroed 4 KB
pages, one page fault each (about a million for a 12-minute call, a tenth of its CPU time). glibc can
ask for transparent huge pages instead (its `glibc.malloc.hugetlb=1` tunable, glibc 2.35 or later), which
the kernel serves 2 MB at a time. The tunable is read only when a process starts, so `speechproc run`
starts itself again with it set, before anything is imported; its worker processes inherit it. No result
changes: only where the memory comes from (docs/benchmarks.md#whole-runs-against-bare-recognition).

It is skipped where it cannot help: not Linux with glibc 2.35 or later, transparent huge pages turned off
(`never`), the tunable already given in GLIBC_TUNABLES, or SPEECHPROC_HUGE_PAGES=0.
"""
from __future__ import annotations

import os
import platform
import sys
from collections.abc import Mapping, Sequence

TUNABLES_ENV = "GLIBC_TUNABLES"  # as concurrency.huge_pages_on reads it (the command line imports api alone)
HUGE_PAGES_TUNABLE = "glibc.malloc.hugetlb"
SWITCH_ENV = "SPEECHPROC_HUGE_PAGES"  # 0 (or off, no, false) keeps the allocator's default
THP_SETTING = "/sys/kernel/mm/transparent_hugepage/enabled"
COMMANDS = ("run",)  # the commands that analyse recordings
OLDEST_GLIBC = (2, 35)


def huge_pages_environment(environ: Mapping[str, str], libc: tuple[str, str], thp_setting: str | None
                           ) -> dict[str, str] | None:
    """The environment to start again with, glibc's allocator asking for huge pages; None where that cannot
    help or is not wanted. `libc` is `platform.libc_ver()`, `thp_setting` the text of THP_SETTING (None
    where there is none)."""
    if environ.get(SWITCH_ENV, "").strip().lower() in ("0", "off", "no", "false"):
        return None
    if HUGE_PAGES_TUNABLE in environ.get(TUNABLES_ENV, ""):
        return None
    name, version = libc
    try:
        if name != "glibc" or tuple(int(part) for part in version.split(".")[:2]) < OLDEST_GLIBC:
            return None
    except ValueError:
        return None
    if thp_setting is None or "[never]" in thp_setting:
        return None
    tunables = [part for part in environ.get(TUNABLES_ENV, "").split(":") if part]
    return {**environ, TUNABLES_ENV: ":".join([*tunables, f"{HUGE_PAGES_TUNABLE}=1"])}


def command_of(arguments: Sequence[str]) -> str | None:
    """The command a `speechproc` command line names: its first argument that is not an option (the group's
    own options are flags)."""
    return next((argument for argument in arguments if not argument.startswith("-")), None)


def _thp_setting() -> str | None:
    try:
        with open(THP_SETTING, encoding="ascii") as f:
            return f.read()
    except OSError:
        return None


def start_again_on_huge_pages() -> None:
    """For a command that analyses recordings, replace this process with itself on huge pages where
    `huge_pages_environment` says so; return where it does not (and where the start fails)."""
    if sys.platform != "linux" or not sys.executable or command_of(sys.argv[1:]) not in COMMANDS:
        return
    environment = huge_pages_environment(os.environ, platform.libc_ver(), _thp_setting())
    if environment is None:
        return
    try:
        os.execve(sys.executable, [sys.executable, *sys.orig_argv[1:]], environment)
    except OSError:
        return

