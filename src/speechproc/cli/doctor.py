"""`speechproc doctor`: what this installation can run, and the command that installs what is missing."""
from __future__ import annotations

import sys

import click

from speechproc import __version__, api
from speechproc.cli.support import EXIT_FAILED, EXIT_OK, emit, printable, v3_errors


def add_commands(main: click.Group) -> None:
    """Add `doctor` to the command line."""
    main.add_command(doctor)


@click.command()
@click.option("--config", "config_file", type=click.Path(dir_okay=False),
              help="Check what this configuration needs instead of the default configuration's needs.")
@click.option("--json", "as_json", is_flag=True, help="The same report as JSON, for scripts.")
@v3_errors
def doctor(config_file: str | None, as_json: bool) -> None:
    """List every model and optional dependency: whether it is installed, is
    the expected file (SHA-256) and loads, what it is for, and the command
    that installs it.

    Exits 0 when everything the default configuration (or --config FILE)
    needs is there and works, 1 when something it needs is missing or
    broken, 2 for a configuration that is not valid. A run checks the same
    before it reads any audio and refuses to start without what it needs.

    \b
    Example:
      speechproc doctor
      speechproc doctor --config configs/callcenter.yaml --json
    """
    found = api.doctor(config_file, config_file or "default")
    if as_json:
        emit({"speechproc": __version__, **found.as_json()})
    else:
        click.echo(printable(found.as_text(__version__)), nl=False)
    sys.exit(EXIT_OK if found.ready else EXIT_FAILED)
