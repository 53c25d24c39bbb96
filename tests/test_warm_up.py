"""Models load once, even when two threads ask at the same time, and the later stages' models load in the
background while recognition runs."""
from __future__ import annotations

import threading
import time
from pathlib import Path

import numpy as np
import pytest

from speechproc import pipeline
from speechproc.conversation import Channel, Conversation
from speechproc.models import loaded_once
from text_helpers import stage_options

CALLCENTER = {"speakerSentiments": True, "conversation": {"verbNounPairsEnabled": True},
              "knowledge": {"enableDiscovery": True}}


def test_a_model_two_threads_ask_for_at_once_is_loaded_once():
    loads = []

    @loaded_once(maxsize=2)
    def load(name: str) -> object:
        loads.append(name)
        time.sleep(0.2)
        return object()

    found = []
    threads = [threading.Thread(target=lambda: found.append(load("model"))) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert loads == ["model"] and len({id(model) for model in found}) == 1
    load("other")
    assert loads == ["model", "other"]


def test_a_load_that_fails_is_tried_again():
    attempts = []

    @loaded_once(maxsize=1)
    def load() -> str:
        attempts.append(1)
        if len(attempts) == 1:
            raise OSError("not yet")
        return "model"

    with pytest.raises(OSError):
        load()
    assert load() == "model" and len(attempts) == 2


def conversation(seconds: float, channels: int = 2) -> Conversation:
    conv = Conversation("00000000-0000-0000-0000-000000000003")
    conv.channels = [Channel(k, f"S{k}", np.zeros(int(seconds * 16000), dtype=np.float32), 16000, named=False)
                     for k in range(channels)]
    return conv


def warmed(monkeypatch, conv: Conversation, raw: dict) -> list[tuple[str, str]]:
    """(stage, thread) of every stage's model load that `_recognise` started, recognition itself left out."""
    from speechproc.stages import asr

    prepared: list[tuple[str, str]] = []
    for name in ("diarize", "sentiment", "verbnoun", "knowledge"):
        module = getattr(pipeline, name)
        monkeypatch.setattr(module, "prepare", lambda options, name=name: prepared.append(
            (name, threading.current_thread().name)))
    monkeypatch.setattr(asr, "check_language", lambda options: None)
    monkeypatch.setattr(asr, "run", lambda conv, options, on_seconds: time.sleep(0.2))
    pipeline._recognise(pipeline.Run(Path("call.wav"), stage_options(raw), conv, None, None))
    for thread in threading.enumerate():
        if thread.name == pipeline.WARM_UP_THREAD:
            thread.join()
    return prepared


def test_the_models_of_the_stages_that_will_run_load_while_recognition_runs(monkeypatch):
    found = warmed(monkeypatch, conversation(60), CALLCENTER)
    assert found == [(name, pipeline.WARM_UP_THREAD) for name in ("sentiment", "verbnoun", "knowledge")]
    assert warmed(monkeypatch, conversation(60, channels=1), {}) == [("diarize", pipeline.WARM_UP_THREAD)]
    assert warmed(monkeypatch, conversation(60), {}) == []  # a stereo call with no analytics needs no model


def test_a_long_recording_loads_its_models_after_recognition(monkeypatch):
    assert warmed(monkeypatch, conversation(pipeline.WARM_UP_MAX_S + 1), CALLCENTER) == []
