"""`speechproc media`: the media items of the catalog (the v3 `/media` endpoints): list, get, progress,
metadata, align."""
from __future__ import annotations

from pathlib import Path

import click

from speechproc import api
from speechproc.cli import media_admin
from speechproc.cli.support import TEXT, emit, v3_errors


def add_commands(main: click.Group) -> None:
    """Add the `media` group to the command line."""
    main.add_command(media)
    media_admin.add_commands(media)


@click.group()
def media() -> None:
    """Read, change and delete media items of the catalog (the v3 /media endpoints)."""


@media.command("list")
@click.option("--limit", default=api.LIST_LIMITS.default, show_default=True, type=click.IntRange(1, api.LIST_LIMITS.most),
              help="How many items (at most 1000).")
@click.option("--sort-order", type=click.Choice(["asc", "desc"]), default="desc", show_default=True,
              help="By creation date: desc is newest first.")
@click.option("--query", type=TEXT, help="Full text: every word must be in the metadata or the transcript; "
                              "FIELD:WORD looks in one metadata field (title:refund); WORD* is a prefix.")
@click.option("--external-id", type=TEXT, help="Only the item(s) with this metadata.externalId.")
@click.option("--after", type=TEXT, metavar="MEDIA_ID", help="Only items created after this media item.")
@click.option("--before", type=TEXT, metavar="MEDIA_ID", help="Only items created before this media item.")
@click.option("--on-or-after-date", type=TEXT, metavar="DATE",
              help="Created on or after: YYYY-MM-DD or ISO 8601 (UTC if no offset).")
@click.option("--on-or-before-date", type=TEXT, metavar="DATE",
              help="Created on or before: YYYY-MM-DD (the whole day) or ISO 8601.")
@click.option("--extended-filter", type=TEXT, multiple=True, metavar="NAME;VALUE",
              help="metadata.extended.NAME equals VALUE (NAME may be dotted: team.id;7). Repeatable: all must hold.")
@v3_errors
def media_list(limit: int, sort_order: str, query: str | None, external_id: str | None, after: str | None,
               before: str | None, on_or_after_date: str | None, on_or_before_date: str | None,
               extended_filter: tuple[str, ...]) -> None:
    """List media items (without results), newest first, with the v3 listing filters.

    A bad filter value prints the v3 error body and exits 2; an unknown
    --after/--before media id is a 404 (exit 1).

    \b
    Example:
      speechproc media list --limit 10
      speechproc media list --on-or-after-date 2026-11-01 --extended-filter "queue;billing" --sort-order asc
      speechproc media list --query "title:support refund*" --external-id call-0042
    """
    emit(api.list_media(limit, sort_order=sort_order, query=query, external_id=external_id, after=after,
                        before=before, on_or_after_date=on_or_after_date, on_or_before_date=on_or_before_date,
                        extended_filter=extended_filter))


@media.command("get")
@click.argument("media_id", type=TEXT)
@v3_errors
def media_get(media_id: str) -> None:
    """Print one media item with all its results.

    \b
    Example:
      speechproc media get 6f1c...-...
    """
    emit(api.get_media(media_id))


@media.command("progress")
@click.argument("media_id", type=TEXT)
@v3_errors
def media_progress(media_id: str) -> None:
    """Print the processing progress of a media item, one task per stage.

    \b
    Example:
      speechproc media progress 6f1c...-...
    """
    emit(api.get_media(media_id, "progress"))


@media.command("metadata")
@click.argument("media_id", type=TEXT)
@v3_errors
def media_metadata(media_id: str) -> None:
    """Print the metadata given when the media item was processed.

    \b
    Example:
      speechproc media metadata 6f1c...-...
    """
    emit(api.get_media(media_id, "metadata"))


@media.command("align")
@click.argument("media_id", type=TEXT)
@click.argument("transcript_file", type=click.Path(dir_okay=False, exists=True))
@click.option("--config", "config_file", type=click.Path(dir_okay=False),
              help="Configuration for the recomputation (default: the one the item was processed with).")
@v3_errors
def media_align(media_id: str, transcript_file: str, config_file: str | None) -> None:
    """Align a human transcript to a finished media item and recompute everything.

    TRANSCRIPT_FILE is plain text (UTF-8); a line may start with "Name: " to say
    who speaks. Matched words keep the machine times, changed and added words get
    interpolated times; then every configured analytic, prediction, category and
    callback is recomputed and the outputs are rewritten. A transcript of another
    recording (most words unmatched) is refused and nothing changes (exit 2).
    Prints the new media item with "alignment": {words, matched}.

    \b
    Example:
      speechproc media align 6f1c...-... corrected.txt
    """
    try:
        text = Path(transcript_file).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise click.UsageError(f"{transcript_file}: cannot be read as UTF-8 text ({exc})") from None
    emit(api.align_media(media_id, text, config_file or None))  # None: the item's own configuration
