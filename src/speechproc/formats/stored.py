"""The one way back from a stored media item (its v3 JSON) to the data model the writers take.

The transcript command, callbacks, alternate formats and alignment all read a stored item through
`StoredTranscript`, so that a served or sent caption is the same text as the file written at the
time, DFXP language included.
"""
from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import cast

from speechproc.conversation import Token
from speechproc.formats.v3json import ALTERNATE_ORDER, words_from_json
from speechproc.formats.writers import get_writer
from speechproc.results import AlternateFormat, MediaItem, Transcript


def writer_language(language: str) -> str:
    """The language the writers take (DFXP's xml:lang) for a v3 language code: `fr-FR` -> `fr`."""
    return language.split("-")[0]


@dataclass(frozen=True)
class StoredTranscript:
    """A stored item's words with what the writers need besides them."""

    words: list[Token]
    language: str  # the v3 language code the item was processed with, e.g. en-US

    def render(self, fmt: str) -> str:
        """The text of one format (text, srt, webvtt, dfxp), exactly as the file written beside the input."""
        return get_writer(fmt, writer_language(self.language)).render(self.words)

    def alternate_format(self, fmt: str) -> AlternateFormat:
        """One v3 `alternateFormats` entry: the format's text, Base64 encoded."""
        writer = get_writer(fmt, writer_language(self.language))
        data = writer.render(self.words).encode("utf-8")
        return {"format": fmt, "contentType": writer.content_type, "contentEncoding": "Base64",
                "charset": "utf-8", "data": base64.b64encode(data).decode("ascii")}

    def with_alternate_formats(self, transcript: Transcript, formats: list[str]) -> Transcript:
        """A copy of the stored transcript object with the requested alternate formats (VoiceBase's order)."""
        out = cast(Transcript, {k: v for k, v in transcript.items() if k != "alternateFormats"})
        wanted = [f for f in ALTERNATE_ORDER if f in formats]
        if wanted:
            out["alternateFormats"] = [self.alternate_format(f) for f in wanted]
        return out


def stored_transcript(item: MediaItem, language: str) -> StoredTranscript:
    """The transcript of a stored media item (it must have one) with the language it was processed in."""
    return StoredTranscript(words_from_json(item["transcript"].get("words", [])), language)
