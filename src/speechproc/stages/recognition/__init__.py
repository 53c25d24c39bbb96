"""Recognition: what was said, and when. The recording decoded into channels (`ingest`), speech
recognised (`asr`) with the custom vocabulary's hint and correction (`vocabulary`, its phonetic index in
`soundalike`), the words as v3 tokens (`punctuation`), speaker turns and their sentences (`turns`,
`sentences`), and a human transcript aligned to the machine words (`align`).

Its modules import the foundation, `engines/`, `query/` and `stages/options.py`, and no other
sub-package of `stages/`. Everyone else imports only the names below: the stage modules that
`stages/pipeline.py` walks, the sentences' shared embeddings and character offsets (for `analytics`),
and the aligner (for `batch/alignment.py`).
"""
from __future__ import annotations

from speechproc.stages.recognition import asr, ingest, punctuation, turns, vocabulary
from speechproc.stages.recognition.align import TranscriptMismatch, align_text
from speechproc.stages.recognition.sentences import char_offsets, embed, embeddings

__all__ = ["TranscriptMismatch", "align_text", "asr", "char_offsets", "embed",
           "embeddings", "ingest", "punctuation", "turns", "vocabulary"]
