"""Call insights: the language model's questions over a call, their answers checked against its
turns (`insights`), what the model reads and may say, grounded in the transcript (`grounding`), the
words spoken to the transcript's reader that it never reads (`spoken_instructions`), which clauses are
promises of a step after the call (`promises`), and the quality questions answered by a known check
(`checks`) or judged by the model turn by turn (`quality`).

Its modules import the foundation, `engines/` and `stages/options.py`, and no other sub-package of
`stages/`. Everyone else imports only the names below: the stage module that `stages/pipeline.py`
walks, and the memory the model adds to a worker (for `batch/runner.py`).
"""
from __future__ import annotations

from speechproc.stages.call_insights import insights
from speechproc.stages.call_insights.insights import memory

__all__ = ["insights", "memory"]
