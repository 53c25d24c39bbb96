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


def warm_up_thread() -> threading.Thread:
    return next(t for t in threading.enumerate() if t.name == pipeline.WARM_UP_THREAD)


def waits_on(thread: threading.Thread, event: threading.Event) -> bool:
    """Whether `thread` is waiting on `event` now."""
    frame = sys._current_frames().get(thread.ident)
    while frame is not None:
        if frame.f_code is threading.Event.wait.__code__ and frame.f_locals.get("self") is event:
            return True
        frame = frame.f_back
    return False


def warmed(monkeypatch, conv: Conversation, raw: dict) -> list[tuple[str, str]]:
    """(model, thread) of every load the warm-up made: the recogniser's while the recording is decoded
    (checked: before the decoded channels are there, nothing else), then, once voice activity detection
    is done (checked: not before), the later stages' models."""
    from speechproc.stages.recognition import asr

    prepared: list[tuple[str, str]] = []
    for name in ("diarize", "sentiment", "verbnoun", "knowledge"):
        module = getattr(pipeline, name)
        monkeypatch.setattr(module, "prepare", lambda options, name=name: prepared.append(
            (name, threading.current_thread().name)))

    monkeypatch.setattr(asr, "load", lambda options: prepared.append(("recogniser", threading.current_thread().name)))
    run = pipeline.Run(Path("call.wav"), stage_options(raw), conv, None, None)
    pipeline._warm_up(run)
    thread = warm_up_thread()
    wait_until(lambda: not thread.is_alive() or waits_on(thread, run.decoded),
               "the warm-up never waited for the decoded recording")
    assert prepared == [("recogniser", pipeline.WARM_UP_THREAD)]  # only the recogniser, before decoding ends
    run.decoded.set()
    wait_until(lambda: not thread.is_alive() or waits_on(thread, run.speech_found),
               "the warm-up never waited for voice activity detection")
    assert prepared == [("recogniser", pipeline.WARM_UP_THREAD)]  # nothing more while the VAD runs
    run.speech_found.set()
    thread.join(WAIT_S)
    assert not thread.is_alive()
    return prepared[1:]


def test_the_warm_up_loads_nothing_for_given_words(monkeypatch):
    run = pipeline.Run(Path("call.wav"), stage_options(CALLCENTER), conversation(60), None, [])
    pipeline._warm_up(run)
    assert not any(t.name == pipeline.WARM_UP_THREAD for t in threading.enumerate())


def test_a_recogniser_that_cannot_load_ends_the_warm_up(monkeypatch):
    from speechproc.stages.recognition import asr

    loads: list[str] = []
    monkeypatch.setattr(asr, "load", lambda options: loads.append("recogniser") or (_ for _ in ()).throw(OSError()))
    monkeypatch.setattr(pipeline.knowledge, "prepare", lambda options: loads.append("knowledge"))
    run = pipeline.Run(Path("call.wav"), stage_options(CALLCENTER), conversation(60), None, None)
    run.decoded.set()
    run.speech_found.set()
    pipeline._warm_up(run)
    for thread in threading.enumerate():
        if thread.name == pipeline.WARM_UP_THREAD:
            thread.join(WAIT_S)
    assert loads == ["recogniser"]


def test_the_models_of_the_stages_that_will_run_load_while_the_speech_is_decoded(monkeypatch):
    found = warmed(monkeypatch, conversation(60), CALLCENTER)
    assert found == [(name, pipeline.WARM_UP_THREAD) for name in ("sentiment", "verbnoun", "knowledge")]
    assert warmed(monkeypatch, conversation(60, channels=1), {}) == [("diarize", pipeline.WARM_UP_THREAD)]
    assert warmed(monkeypatch, conversation(60), {}) == []  # a stereo call with no analytics needs no model


def test_a_long_recording_loads_its_models_after_recognition(monkeypatch):
    assert warmed(monkeypatch, conversation(pipeline.WARM_UP_MAX_S + 1), CALLCENTER) == []


NO_TORCH = """
import json, sys
from speechproc import api
from speechproc.config import v3
batch = api.process([sys.argv[1]], v3.validate(json.loads(sys.argv[3])), out_dir=sys.argv[2], force=True,
                    deliver=False)
assert batch.items[0].status == "finished", batch.items[0].error
print("torch" in sys.modules)
"""


@pytest.mark.parametrize("configuration", [{}, {"conversation": {"verbNounPairsEnabled": True}}])
def test_a_run_whose_models_need_no_torch_never_imports_it(tmp_path, configuration):
    """A two-channel call with the default configuration needs the recogniser alone (the channels name the
    speakers), and verb-noun pairs add spaCy's parser, which runs without torch: torch, a second of CPU to
    import, is never loaded."""
    import json
    import os
    import subprocess

    from conftest import SAMPLES

    result = subprocess.run([sys.executable, "-c", NO_TORCH, str(SAMPLES / "call.flac"), str(tmp_path / "out"),
                             json.dumps(configuration)],
                            capture_output=True, text=True, timeout=600,
                            env={**os.environ, "SPEECHPROC_HOME": str(tmp_path / "home")})
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.split()[-1] == "False"
