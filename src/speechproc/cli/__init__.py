"""The command line: thin click commands over the library (`speechproc.api`)."""
from speechproc.cli.commands import entry, main

__all__ = ["entry", "main"]
