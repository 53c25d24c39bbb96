"""The progress bar of `speechproc run`: one bar over the whole batch, whichever worker runs each job."""
from __future__ import annotations

import sys
from typing import Any

import click

from speechproc import api
from speechproc.cli.support import printable


class BarReporter(api.Reporter):
    """A tqdm bar on stderr: files done, audio minutes recognised (over every job running), ETA."""

    def __init__(self, quiet: bool) -> None:
        self.quiet = quiet
        self.bar: Any = None
        self.done_seconds = 0.0
        self.running: dict[str | None, float] = {}  # media id -> the furthest second recognised so far

    def batch_started(self, inputs: list[api.Input]) -> None:
        if not self.quiet and inputs:
            from tqdm import tqdm
            self.bar = tqdm(total=len(inputs), unit="file", file=sys.stderr, dynamic_ncols=True,
                            bar_format="{l_bar}{bar}| {n_fmt}/{total_fmt} files [{elapsed}<{remaining}]{postfix}")

    def item_started(self, inp: api.Input) -> None:
        if self.bar is not None:
            self.bar.set_description(inp.shown_name[:30])

    def audio_seconds(self, seconds: float, media_id: str | None = None) -> None:
        self.running[media_id] = max(self.running.get(media_id, 0.0), seconds)
        self._postfix()

    def item_done(self, result: api.ItemResult) -> None:
        self.running.pop(result.media_id, None)
        self.done_seconds += result.length_ms / 1000
        if result.status == "failed" and result.error:
            first = (result.error["warnings"] if "warnings" in result.error else result.error["errors"])[0]
            self.note(f"{result.shown}: failed: {first}")
        if self.bar is not None:
            self._postfix()
            self.bar.update(1)

    def note(self, message: str) -> None:
        if self.quiet:
            return
        message = printable(message)
        if self.bar is not None:
            self.bar.write(message, file=sys.stderr)
        else:
            click.echo(message, err=True)

    def _postfix(self) -> None:
        if self.bar is not None:
            seconds = self.done_seconds + sum(self.running.values())
            self.bar.set_postfix_str(f"audio {seconds / 60:.1f} min", refresh=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
