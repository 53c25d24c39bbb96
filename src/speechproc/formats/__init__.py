"""Output formats: the v3 JSON and the text formats (text, SRT, WebVTT, DFXP)."""
from .writers import TEXT_FORMATS, WRITERS, Writer, get_writer

__all__ = ["TEXT_FORMATS", "WRITERS", "Writer", "get_writer"]
