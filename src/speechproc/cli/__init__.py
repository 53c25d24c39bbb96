"""The command line: thin click commands over the library (`speechproc.api`)."""
from __future__ import annotations

from typing import Any

__all__ = ["entry", "main"]


def entry() -> None:
    """The `speechproc` console script: `speechproc run` first starts itself again on huge pages where the
    system has them (`launch`), before the commands are imported."""
    from speechproc.cli import launch

    launch.start_again_on_huge_pages()
    from speechproc.cli.commands import entry as run_command

    run_command()


def __getattr__(name: str) -> Any:  # `main`, the click group, imported when asked for
    if name == "main":
        from speechproc.cli.commands import main

        return main
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
