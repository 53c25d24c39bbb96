"""`speechproc insights`: what the call insights say across the catalog (call drivers)."""
from __future__ import annotations

import click

from speechproc import api
from speechproc.cli.support import TEXT, emit, v3_errors


def add_commands(main: click.Group) -> None:
    """Add the `insights` group to the command line."""
    main.add_command(insights)


@click.group()
def insights() -> None:
    """Call insights across the catalog.

    Each call processed with an `insights` section has a reason, an outcome,
    promised actions and answers (see `speechproc run`); these commands read
    them across every call of the catalog.
    """


@insights.command("drivers")
@click.option("--query", "statement", type=TEXT, metavar="STATEMENT",
              help="Only the calls a `speechproc query` statement selects (items processed with "
                   "publish.enableAnalyticIndexing); default: every call of the catalog.")
@v3_errors
def insights_drivers(statement: str | None) -> None:
    """Group the reasons of the calls into call drivers, biggest first.

    Calls are grouped by what their callers wanted: each call's reason with
    the caller's own words in its first turns, by meaning (the bundled MiniLM
    sentence encoder). Each driver is named by its most typical reason and
    has its number of calls, its share, how its calls ended (shares resolved,
    unresolved, followUp) and up to three example calls. Prints {calls, withoutReason,
    drivers: [{driver, calls, share, outcomes, examples: [{mediaId, reason}]}]}.

    \b
    Example:
      speechproc insights drivers
      speechproc insights drivers --query 'SELECT * FROM media WHERE insights.outcome = "unresolved"'
    """
    emit(api.call_drivers(statement))
