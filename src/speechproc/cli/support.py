"""What every command of the command line shares: JSON output that is always valid UTF-8, the v3 error
body for every error (usage errors included) with its exit code, and the parameter types."""
from __future__ import annotations

import json
import sys
from collections.abc import Callable
from functools import wraps
from typing import Any

import click

from speechproc import errors as E
from speechproc.errors import (
    SpeechprocError,
    printable,  # noqa: F401  (text for the terminal, as the library's messages)
)

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
EXIT_INTERRUPTED = 130  # as a shell reports a command stopped by Ctrl-C
MAX_WORKERS = 256


def emit(obj: Any) -> None:
    """JSON to stdout, always valid UTF-8 (a byte of a path that is not UTF-8 is written `\\xNN`)."""
    click.echo(json.dumps(_printable_strings(obj), indent=2, ensure_ascii=False))


def _printable_strings(obj: Any) -> Any:
    if isinstance(obj, str):
        return printable(obj)
    if isinstance(obj, dict):
        return {_printable_strings(k): _printable_strings(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_printable_strings(v) for v in obj]
    return obj


def write_stdout(text: str) -> None:
    """A page or a table on stdout. A reader that went away (`| head`) ends it quietly as before; a
    stdout that cannot be written (a full disk) is exit 1 with the reason on stderr, not a traceback."""
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        raise
    except OSError as exc:
        click.echo(f"error: stdout cannot be written ({exc.strerror or exc})", err=True)
        sys.exit(EXIT_FAILED)


class Utf8Text(click.ParamType):
    """An argument that is text, not a path: it must be valid UTF-8 (a media id, a name, a query)."""

    name = "text"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            self.fail(f"{printable(value)!r} is not valid UTF-8 text", param, ctx)
        return value


TEXT = Utf8Text()


def v3_errors(func: Callable) -> Callable:
    """Print a SpeechprocError as its v3 error body and exit: 2 for configuration errors, 1 otherwise."""
    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except SpeechprocError as exc:
            emit(exc.body())
            click.echo(printable(f"error {exc.code}: {exc.message}"), err=True)
            sys.exit(EXIT_USAGE if isinstance(exc, E.ConfigurationError) else EXIT_FAILED)
    return wrapper


class V3Group(click.Group):
    """The command group: a usage error (a bad option, a missing argument, a folder given as --config)
    prints the v3 error body on stdout as every other error does, the usage on stderr, and exits 2."""

    def main(self, args: Any = None, prog_name: str | None = None, complete_var: str | None = None,
             standalone_mode: bool = True, **extra: Any) -> Any:
        try:
            result = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except click.exceptions.NoArgsIsHelpError as exc:  # `speechproc` alone: the help, not an error body
            exc.show()
            sys.exit(exc.exit_code)
        except click.ClickException as exc:
            emit(E.error_body(400, [(E.INVALID_VALUE, exc.format_message())]))
            exc.show()
            sys.exit(exc.exit_code)
        except click.Abort:
            click.echo("Aborted!", err=True)
            sys.exit(EXIT_FAILED)
        if not standalone_mode:
            return result
        sys.exit(result if isinstance(result, int) else EXIT_OK)


AUTO = 0  # --workers auto


class WorkerCount(click.ParamType):
    """A number of worker processes (1-256), or `auto` (AUTO)."""

    name = "N|auto"

    def convert(self, value: Any, param: Any, ctx: Any) -> int | None:
        if value is None or isinstance(value, int):
            return value
        if str(value).strip().lower() == "auto":
            return AUTO
        text = str(value).strip()
        number = int(text) if text.isascii() and text.isdigit() else 0  # not "+2", "2_0" or other scripts' digits
        if not 1 <= number <= MAX_WORKERS:
            self.fail(f"{value!r} is not a number of workers from 1 to {MAX_WORKERS}, or 'auto'", param, ctx)
        return number
