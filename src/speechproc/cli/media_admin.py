"""`speechproc media` commands that change or delete media items: metadata-put, delete, purge; and streams."""
from __future__ import annotations

import click

from speechproc import api
from speechproc.cli.support import TEXT, emit, printable, v3_errors


def add_commands(media: click.Group) -> None:
    """Add these commands to the `media` group."""
    for command in (media_metadata_put, media_streams, media_delete, media_purge):
        media.add_command(command)


@click.command("metadata-put")
@click.argument("media_id", type=TEXT)
@click.argument("metadata_file", type=click.Path(dir_okay=False))
@v3_errors
def media_metadata_put(media_id: str, metadata_file: str) -> None:
    """Replace a media item's metadata (v3 PUT /media/{id}/metadata).

    METADATA_FILE is JSON or YAML with title, description, externalId,
    externalVersion, extended and callDetails, checked as --metadata of
    `speechproc run` is: invalid metadata changes nothing (exit 2). The item,
    its analytic index entry and its .v3.json are updated; a .v3.json that
    speechproc did not write (or that was changed since) is left as it is, and
    a warning on stderr and in "warnings" says so. Prints the new metadata.

    \b
    Example:
      speechproc media metadata-put 6f1c...-... meta.json
      speechproc media metadata 6f1c...-...
    """
    answer = api.put_metadata(media_id, metadata_file)  # the file read as JSON or YAML, then validated
    for warning in answer.get("warnings", []):
        click.echo(printable(f"warning: {warning['message']}"), err=True)
    emit(answer)


@click.command("streams")
@click.argument("media_id", type=TEXT)
@v3_errors
def media_streams(media_id: str) -> None:
    """List a media item's audio streams (v3 GET /media/{id}/streams).

    Prints {"streams": [{streamName, streamLocation}]}: "original" (the
    recording) and, when redaction wrote one, "redacted-audio"; an encrypted
    item lists "original-encrypted" and "redacted-encrypted" instead. The
    location is a file path.

    \b
    Example:
      speechproc media streams 6f1c...-...
    """
    emit(api.get_media(media_id, "streams"))


@click.command("delete")
@click.argument("media_id", type=TEXT)
@v3_errors
def media_delete(media_id: str) -> None:
    """Delete a media item now (v3 DELETE /media/{id}).

    Deletes the item, its stored results, its analytic index entry, its
    callbacks and every file speechproc wrote for it; never the recording, nor
    a file speechproc did not write or that was changed since (listed in
    "keptFiles"). Prints what was deleted. An unknown id is a 404 (exit 1); an
    item a live run is processing is not deleted (exit 1).

    \b
    Example:
      speechproc media delete 6f1c...-...
    """
    emit(api.delete_media(media_id))


@click.command("purge")
@v3_errors
def media_purge() -> None:
    """Delete every media item whose time to live has passed.

    An item processed with timeToLiveInSeconds expires at its expiresOn
    (dateFinished plus the time to live). Every command deletes expired items
    as it opens the catalog; this one does only that and prints what it
    deleted: {"deleted": [...], "waiting": [...]} ("waiting": expired items a
    live run is still processing, deleted once they have finished).

    \b
    Example:
      speechproc media purge
    """
    emit(api.purge_media())
