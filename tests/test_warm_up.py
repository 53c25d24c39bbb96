"""Models load once, even when two threads ask at the same time, and the later stages' models load in the
background while recognition runs."""
from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from speechproc.conversation import Channel, Conversation
from speechproc.engines.models import loaded_once
from speechproc.stages import pipeline
from text_helpers import stage_options

CALLCENTER = {"speakerSentiments": True, "conversation": {"verbNounPairsEnabled": True},
              "knowledge": {"enableDiscovery": True}}
WAIT_S = 60  # only ever reached by a test that fails: threads that never get where they should


def wait_until(state: Callable[[], bool], failure: str) -> None:
    """Return once `state()` holds; fail with `failure` if it does not within WAIT_S."""
    deadline = time.monotonic() + WAIT_S
    while not state():
        assert time.monotonic() < deadline, failure
        time.sleep(0.005)


def stack_of(thread: threading.Thread) -> set:
    """The code objects of `thread`'s stack (empty once it has ended)."""
    frame, codes = sys._current_frames().get(thread.ident), set()
    while frame is not None:
        codes.add(frame.f_code)
        frame = frame.f_back
    return codes


def test_a_model_two_threads_ask_for_at_once_is_loaded_once():
    loads = []
    release = threading.Event()

    @loaded_once(maxsize=2)
    def load(name: str) -> object:
        loads.append(name)
        assert release.wait(WAIT_S), "never released"
        return object()

    def waiting(thread: threading.Thread) -> bool:  # asked for a model, not loading it
        assert loads == ["model"], f"a second load started while the first ran: {loads}"
        codes = stack_of(thread)
        return load.__code__ in codes and load.__wrapped__.__code__ not in codes

    found = []
    threads = [threading.Thread(target=lambda: found.append(load("model"))) for _ in range(4)]
    threads[0].start()
    wait_until(lambda: loads == ["model"], "the first load never started")
    for thread in threads[1:]:
        thread.start()
    try:  # the other three ask while the first load runs
        wait_until(lambda: all(waiting(thread) for thread in threads[1:]), "the other threads never asked")
    finally:
        release.set()
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
    while_recognising: list[tuple[str, str]] = []

    def recognise(conv, options, on_seconds):  # lasts until the loads started before it have ended
        for thread in threading.enumerate():
            if thread.name == pipeline.WARM_UP_THREAD:
                thread.join(WAIT_S)
        while_recognising.extend(prepared)

    monkeypatch.setattr(asr, "run", recognise)
    pipeline._recognise(pipeline.Run(Path("call.wav"), stage_options(raw), conv, None, None))
    for thread in threading.enumerate():
        if thread.name == pipeline.WARM_UP_THREAD:
            thread.join()
    assert while_recognising == prepared  # every load started before recognition, none after it
    return prepared


def test_the_models_of_the_stages_that_will_run_load_while_recognition_runs(monkeypatch):
    found = warmed(monkeypatch, conversation(60), CALLCENTER)
    assert found == [(name, pipeline.WARM_UP_THREAD) for name in ("sentiment", "verbnoun", "knowledge")]
    assert warmed(monkeypatch, conversation(60, channels=1), {}) == [("diarize", pipeline.WARM_UP_THREAD)]
    assert warmed(monkeypatch, conversation(60), {}) == []  # a stereo call with no analytics needs no model


def test_a_long_recording_loads_its_models_after_recognition(monkeypatch):
    assert warmed(monkeypatch, conversation(pipeline.WARM_UP_MAX_S + 1), CALLCENTER) == []
