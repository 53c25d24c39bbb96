"""Output formats: the v3 JSON, the text formats (text, SRT, WebVTT, DFXP) and RTTM, and the names of their files."""
from speechproc.formats.writers import TEXT_FORMATS, WRITERS, Writer, get_writer

JSON_SUFFIX = ".v3.json"  # a media item's v3 JSON beside its other outputs
REPORT_SUFFIX = ".report.html"  # its HTML call report
INSIGHTS_SUFFIX = ".insights.txt"  # its call insights as text, when the configuration asks for insights
RTTM_SUFFIX = ".rttm"  # who spoke when (formats/rttm.py), when `run --rttm` asks for it

__all__ = ["INSIGHTS_SUFFIX", "JSON_SUFFIX", "REPORT_SUFFIX", "RTTM_SUFFIX", "TEXT_FORMATS", "WRITERS", "Writer",
           "get_writer"]
