"""Personal data: the detectors and transcript redaction (`detect`): card and social security numbers
and spoken digit runs (`numbers`), and the PII detector (`pii`, with its parts: numbers that are
personal data `pii_numbers`, addresses `pii_places`, questions read by the sentence encoder
`pii_questions`, the strict mode `pii_strict`, the talk around the data `pii_talk`, and its words
`pii_words`).

Its modules import the foundation, `engines/` and `stages/options.py`, and no other sub-package of
`stages/`. Everyone else imports only the names below: the stage module that `stages/pipeline.py`
walks, and the PII kinds and strictness levels a configuration may name (for `config/v3.py`).
"""
from __future__ import annotations

from speechproc.stages.personal_data import detect
from speechproc.stages.personal_data.pii import KINDS
from speechproc.stages.personal_data.pii_strict import STRICTNESS

__all__ = ["KINDS", "STRICTNESS", "detect"]
