"""One writer class per text format, behind `get_writer(name)`."""
from __future__ import annotations

from xml.sax.saxutils import escape

from speechproc.conversation import Token
from speechproc.formats.cues import build_cues, clock, turn_texts


class Writer:
    name = ""
    extension = ""
    content_type = ""

    def render(self, words: list[Token]) -> str:
        raise NotImplementedError


class TextWriter(Writer):
    """Plain text on one line: each turn as 'Speaker: words.', turns separated by a space."""

    name, extension, content_type = "text", ".txt", "text/plain"

    def render(self, words: list[Token]) -> str:
        parts = []
        for turn in turn_texts(words):
            body = " ".join(text for text, _, _ in turn.pieces)
            parts.append(f"{turn.speaker}: {body}" if turn.speaker else body)
        return " ".join(parts)


# SRT has no header, so a file without cues is 0 bytes, which common readers (webvtt-py) refuse as
# malformed: a recording without speech gets this one cue without text instead.
EMPTY_SRT = "1\n00:00:00,000 --> 00:00:00,001\n\n"


class SrtWriter(Writer):
    """SubRip: numbered cues; a recording without speech gives one cue without text (EMPTY_SRT)."""

    name, extension, content_type = "srt", ".srt", "text/srt"

    def render(self, words: list[Token]) -> str:
        blocks = [f"{i}\n{clock(c.start, ',')} --> {clock(c.end, ',')}\n" + "\n".join(c.lines) + "\n"
                  for i, c in enumerate(build_cues(words), 1)]
        return "\n".join(blocks) + "\n" if blocks else EMPTY_SRT


class WebVttWriter(Writer):
    name, extension, content_type = "webvtt", ".vtt", "text/vtt"

    def render(self, words: list[Token]) -> str:
        blocks = [f"{i}\n{clock(c.start, '.')} --> {clock(c.end, '.')}\n" + "\n".join(c.lines) + "\n"
                  for i, c in enumerate(build_cues(words), 1)]
        return "WEBVTT\n\n" + "\n".join(blocks) + ("\n" if blocks else "")


DFXP_HEAD = (
    '<tt xmlns="http://www.w3.org/2006/04/ttaf1" xmlns:tts="http://www.w3.org/2006/04/ttaf1#styling">'
    '<head><styling><style id="defaultCaption" tts:backgroundColor="black" tts:color="white" '
    'tts:fontFamily="SansSerif" tts:fontSize="12" tts:fontStyle="normal" tts:fontWeight="normal" '
    'tts:textAlign="left" tts:textDecoration="none"/></styling></head>'
    '<body id="thebody"><div style="defaultCaption" xml:lang="{lang}">'
)


class DfxpWriter(Writer):
    """DFXP (TTML 2006 namespace) on one line, as VoiceBase writes it; line breaks as <br/>."""

    name, extension, content_type = "dfxp", ".dfxp", "application/ttaf+xml"

    def __init__(self, lang: str = "en") -> None:
        self.lang = lang

    def render(self, words: list[Token]) -> str:
        cues = "".join(
            f'<p begin="{clock(c.start, ".")}" end="{clock(c.end, ".")}">'
            + "<br/>".join(escape(line) for line in c.lines) + "</p>"
            for c in build_cues(words)
        )
        return DFXP_HEAD.replace("{lang}", escape(self.lang)) + cues + "</div></body></tt>"


WRITERS: dict[str, type[Writer]] = {w.name: w for w in (TextWriter, SrtWriter, WebVttWriter, DfxpWriter)}
TEXT_FORMATS = tuple(WRITERS)  # text, srt, webvtt, dfxp


def get_writer(name: str, lang: str = "en") -> Writer:
    """The writer for a format name: text, srt, webvtt or dfxp (`lang` is DFXP's xml:lang)."""
    if name == "dfxp":
        return DfxpWriter(lang)
    try:
        return WRITERS[name]()
    except KeyError:
        raise ValueError(f"unknown format {name!r}; choose one of {', '.join(WRITERS)}") from None
