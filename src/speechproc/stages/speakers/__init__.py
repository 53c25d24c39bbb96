"""Speakers: who spoke when, and who they are. Diarization of a one-channel recording (`diarize`, with
its three pipelines `diarize_windows`, `diarize_hybrid` and `diarize_segmentation`, and the clustering
they share in `speaker_clusters`), speakers named by their enrolled voiceprints (`identify`), and the
voice features of each word (`voice`).

Its modules import the foundation, `engines/` and `stages/options.py`, and no other sub-package of
`stages/`. Everyone else imports only the names below: the stage modules that `stages/pipeline.py`
walks, enrollment's voiceprints (for `batch/enrollment.py`) and their similarities (for
`store/registered/speakers.py`).
"""
from __future__ import annotations

from speechproc.stages.speakers import diarize, identify, voice
from speechproc.stages.speakers.identify import enrollment_voices, similarities

__all__ = ["diarize", "enrollment_voices", "identify", "similarities", "voice"]
