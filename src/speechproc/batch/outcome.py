"""What a batch tells as it goes and what it returns: `Reporter` (progress), `ItemResult` (one input),
`BatchResult` (the batch), `Interrupted` (a batch Ctrl-C stopped), and the JSON forms of them that
`speechproc run` prints (`ItemSummary`, `RunSummary`; an error's is `errors.ErrorBody`)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypedDict

from speechproc.errors import ErrorBody
from speechproc.paths import shown

if TYPE_CHECKING:
    from speechproc.batch.planning import Input


class _ItemSummaryRequired(TypedDict):
    input: str
    mediaId: str | None
    status: str


class ItemSummary(_ItemSummaryRequired, total=False):
    """One input in the summary of `speechproc run`."""

    outputs: dict[str, str]  # format -> file
    error: ErrorBody


class RunSummary(TypedDict, total=False):
    """The summary `speechproc run` prints: every input's, and the problems that are no item's."""

    media: list[ItemSummary]
    errors: list[ErrorBody]


@dataclass
class ItemResult:
    path: str  # the exact path (it may hold a name that is not UTF-8), or a URL's public form; shown by as_json
    media_id: str | None
    status: str  # finished, failed or skipped
    outputs: dict[str, str] = field(default_factory=dict)
    error: ErrorBody | None = None
    length_ms: int = 0

    @property
    def shown(self) -> str:
        """The input as messages show it (`paths.shown`)."""
        return shown(self.path)

    def as_json(self) -> ItemSummary:
        """The summary entry: {input, mediaId, status, outputs?, error?}, paths as valid UTF-8 text."""
        out: ItemSummary = {"input": self.shown, "mediaId": self.media_id, "status": self.status}
        if self.outputs:
            out["outputs"] = {k: shown(v) for k, v in self.outputs.items()}
        if self.error:
            out["error"] = self.error
        return out


class Reporter:
    """Receives progress; the CLI draws it, tests can record it. Every method is optional."""

    def batch_started(self, inputs: list[Input]) -> None: ...
    def item_started(self, inp: Input) -> None: ...
    def item_done(self, result: ItemResult) -> None: ...
    def audio_seconds(self, seconds: float, media_id: str | None = None) -> None: ...
    def note(self, message: str) -> None: ...


@dataclass
class BatchResult:
    items: list[ItemResult]
    problems: list[ErrorBody]  # v3 error bodies for inputs that yield no item (a folder with no media)

    @property
    def ok(self) -> bool:
        return not self.problems and all(i.status != "failed" for i in self.items)

    def as_json(self) -> RunSummary:
        """The summary `speechproc run` prints: {media: [ItemResult.as_json()], errors?: problems}."""
        summary: RunSummary = {"media": [r.as_json() for r in self.items]}
        if self.problems:
            summary["errors"] = self.problems
        return summary


class Interrupted(KeyboardInterrupt):
    """Ctrl-C stopped the batch: the items it had handled by then (those it stopped recorded as failed,
    `interrupted`), how many inputs it never started, and the batch's problems."""

    def __init__(self, items: list[ItemResult], not_started: int, problems: list[ErrorBody] | None = None) -> None:
        super().__init__()
        self.items, self.not_started, self.problems = items, not_started, problems or []
