"""Output formats: the v3 JSON and the text formats (text, SRT, WebVTT, DFXP), and the names of their files."""
from speechproc.formats.writers import TEXT_FORMATS, WRITERS, Writer, get_writer

JSON_SUFFIX = ".v3.json"  # a media item's v3 JSON beside its other outputs
REPORT_SUFFIX = ".report.html"  # its HTML call report
INSIGHTS_SUFFIX = ".insights.txt"  # its call insights as text, when the configuration asks for insights

__all__ = ["INSIGHTS_SUFFIX", "JSON_SUFFIX", "REPORT_SUFFIX", "TEXT_FORMATS", "WRITERS", "Writer", "get_writer"]
