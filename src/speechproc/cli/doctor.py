"""`speechproc doctor`: what this installation can run, and the command that installs what is missing."""
from __future__ import annotations

import sys
from typing import TypedDict, cast

import click

from speechproc import __version__, api
from speechproc.cli.support import EXIT_FAILED, EXIT_OK, emit, printable, v3_errors


class Component(TypedDict):
    """One model or optional dependency as the report lists it (`inventory.Check.as_json`)."""

    name: str
    title: str
    kind: str
    usedFor: str
    needed: bool  # the configuration checked needs it
    present: bool
    verified: bool | None  # the expected file; None: nothing to compare with
    usable: bool | None  # it loads; None: not tried
    version: str | None
    location: str | None
    problem: str | None
    install: str  # the command that installs it


class Found(TypedDict):
    """The report `speechproc doctor --json` prints."""

    speechproc: str
    python: str
    implementation: str
    platform: str
    pythonSupported: bool
    configuration: str  # "default" or the configuration file
    ready: bool
    components: list[Component]


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
    found = cast(Found, {"speechproc": __version__, **api.doctor(config_file, config_file or "default").as_json()})
    if as_json:
        emit(found)
    else:
        click.echo(printable(text(found)), nl=False)
    sys.exit(EXIT_OK if found["ready"] else EXIT_FAILED)


STATUS_WIDTH, TITLE_WIDTH, VERSION_WIDTH = 9, 30, 17  # a nightly version: "2026.10.11549"


def _status(check: Component) -> str:
    if not check["present"]:
        return "missing"
    if check["verified"] is False:
        return "corrupt"
    if check["usable"] is False:
        return "broken"
    return "ok"


def text(found: Found) -> str:
    """The report (`api.doctor(...).as_json()`) as a table for people: one line per component, the command
    that installs it under each that is not fine."""
    lines = [f"speechproc {found['speechproc']} on Python {found['python']} ({found['implementation']}, "
             f"{found['platform']})"]
    if not found["pythonSupported"]:
        lines.append("note: speechproc is not tested on this Python (3.10 to 3.13 are)")
    what = "the default configuration" if found["configuration"] == "default" else found["configuration"]
    lines += [f"checked for: {what}", "",
              f"{'status':<{STATUS_WIDTH}}{'component':<{TITLE_WIDTH}}{'needed':<8}{'version':<{VERSION_WIDTH}}used for"]
    for check in found["components"]:
        status = _status(check)
        lines.append(f"{status:<{STATUS_WIDTH}}{check['title']:<{TITLE_WIDTH}}{'yes' if check['needed'] else 'no':<8}"
                     f"{check['version'] or '-':<{VERSION_WIDTH}}{check['usedFor']}")
        if status != "ok":
            if check["present"] and check["problem"]:
                lines.append(f"{'':<{STATUS_WIDTH}}problem: {check['problem']}")
            lines.append(f"{'':<{STATUS_WIDTH}}install: {check['install']}")
    lines.append("")
    if found["ready"]:
        lines.append(f"Everything {what} needs is installed and works.")
    else:
        names = ", ".join(c["title"] for c in found["components"] if c["needed"] and _status(c) != "ok")
        lines.append(f"{what[0].upper() + what[1:]} cannot run without: {names} (install as shown above).")
    return "\n".join(lines) + "\n"
