"""`speechproc speakers`: people enrolled by voice, named in every recording: enroll, list, get, delete."""
from __future__ import annotations

import click

from speechproc import api
from speechproc.cli.support import TEXT, emit, v3_errors


def add_commands(main: click.Group) -> None:
    """Add the `speakers` group to the command line."""
    main.add_command(speakers)


@click.group()
def speakers() -> None:
    """People enrolled by voice, named in every recording.

    Once anyone is enrolled, a speaker that diarization finds in a one-channel
    recording, or an unnamed channel of a two-channel one, whose voice matches
    an enrolled voiceprint takes that person's name in every output; their
    role (agent, caller) decides the parties of a one-channel call's metrics.
    speechproc.speakerIdentification: false turns it off for a run.

    A voiceprint is biometric data: it stays in the catalog (mode 0600), is
    never printed or written to an output or callback, and delete overwrites it.
    """


@speakers.command("enroll")
@click.argument("name", type=TEXT)
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--role", type=TEXT, help="The person's role: agent or caller decide the parties of a "
              "one-channel call's metrics; any other text is kept as said.")
@click.option("--replace", is_flag=True, help="Replace the person's voiceprint instead of adding these "
              "recordings to it.")
@v3_errors
def speakers_enroll(name: str, files: tuple[str, ...], role: str | None, replace: bool) -> None:
    """Compute a voiceprint of NAME from FILES, recordings of that person
    speaking alone (5 s of speech at least in all, 2 s in each; the first 20
    minutes of each are read), and store it.

    Enrolling a name again adds the recordings to its voiceprint (or replaces
    it with --replace); the output says which: "voiceprint": created, added,
    replaced or unchanged. A recording enrolled under another name is refused:
    one recording is one person's voice. Prints {speakerName, speakerRole,
    recordings, speechSeconds, dateCreated, dateModified, voiceprint}.

    \b
    Example:
      speechproc speakers enroll "Dana Reyes" dana-1.wav dana-2.flac --role agent
    """
    emit(api.enroll_speaker(name, list(files), role, replace))


@speakers.command("list")
@v3_errors
def speakers_list() -> None:
    """List the enrolled people (name, role, recordings, seconds of speech), by name.

    \b
    Example:
      speechproc speakers list
    """
    emit(api.list_definitions("speaker"))


@speakers.command("get")
@click.argument("name", type=TEXT)
@v3_errors
def speakers_get(name: str) -> None:
    """Print one enrolled person, without the voiceprint. Unknown: 404 (exit 1).

    \b
    Example:
      speechproc speakers get "Dana Reyes"
    """
    emit(api.get_definition("speaker", name))


@speakers.command("delete")
@click.argument("name", type=TEXT)
@v3_errors
def speakers_delete(name: str) -> None:
    """Delete an enrolled person: the voiceprint is overwritten in the catalog
    file, and recordings processed from now on no longer name them. Outputs
    written earlier keep the name they were written with. Unknown: 404 (exit 1).

    \b
    Example:
      speechproc speakers delete "Dana Reyes"
    """
    api.delete_definition("speaker", name)
