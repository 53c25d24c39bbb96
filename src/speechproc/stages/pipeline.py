"""The ordered stages and the runner: progress events per stage, failures named by stage."""
from __future__ import annotations

import functools
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from speechproc import errors as E
from speechproc.concurrency import limit_torch, one_thread_each, traced
from speechproc.conversation import Conversation, RecognizedWord
from speechproc.engines import inventory
from speechproc.media import ASR_RATE, give_back_memory
from speechproc.stages.analytics import knowledge, metrics, sentiment, verbnoun
from speechproc.stages.call_insights import insights
from speechproc.stages.matching import categories, classify, spotting
from speechproc.stages.options import Options
from speechproc.stages.personal_data import detect
from speechproc.stages.recognition import asr, ingest, punctuation, turns, vocabulary
from speechproc.stages.speakers import diarize, identify, voice

WARM_UP_MAX_S = 20 * 60  # the longest recording whose later stages' models load while recognition runs
WARM_UP_THREAD = "speechproc-warm-up"


@dataclass
class Run:
    """One recording's pass through the stages: what the steps and predicates read."""

    path: Path
    options: Options
    conv: Conversation
    on_seconds: SecondsEvent | None
    words: list[RecognizedWord] | None  # an aligned transcript instead of recognition
    decoded: threading.Event = field(default_factory=threading.Event)  # the recording is decoded into channels
    speech_found: threading.Event = field(default_factory=threading.Event)  # voice activity detection is done
    audio_bytes: int = 0  # the most audio its channels held when some was let go of (for `give_back_memory`)


@dataclass(frozen=True)
class Stage:
    """One stage: its progress task, the one predicate that decides whether it runs, and the step."""

    name: str
    display: str
    phase: str
    runs: Callable[[Run], bool]
    step: Callable[[Run], None]
    then: Callable[[Run], None] | None = None  # after the stage, run or skipped: let go of what no later one reads
    prepare: Callable[[Run], None] | None = None  # load the stage's models (in the background, see _warm_up)
    needs: Callable[[Options], tuple[str, ...]] | None = None  # the bundled models it may load (inventory keys)
    # where the stage will run under these options, load its models that start no thread (see `preload`)
    preload: Callable[[Options], None] | None = None


def _always(run: Run) -> bool:
    return True


def _recognise(run: Run) -> None:
    if run.words is None:
        asr.check_language(run.options.recognition)  # the recogniser, loaded while the recording was decoded
        recognition = vocabulary.with_hint(run.conv, run.options.recognition, run.options.vocabulary,
                                           lambda: asr.load(run.options.recognition))
        asr.run(run.conv, recognition, run.on_seconds, run.speech_found.set)
        again = vocabulary.respotted(run.conv, recognition, run.options.vocabulary,
                                     lambda: asr.load(run.options.recognition)) if run.options.vocabulary.terms else None
        if again is not None:  # a vocabulary larger than the hint: listen again for the terms heard
            first, run.conv.recognized = run.conv.recognized, []
            asr.run(run.conv, again)
            run.conv.recognized = vocabulary.kept_from_second_pass(first, run.conv.recognized, again.hotwords)
    else:
        _take_words(run.conv, run.words)


def _warm_up(run: Run) -> None:
    """Load models in a background thread while the main one works: the recogniser while the recording is
    decoded, then, once voice activity detection is done (`run.speech_found`), the models of the later stages
    that will run, while the speech is decoded. Each is then ready when its stage starts instead of loading
    there; decoding spends its time in native code that lets go of the GIL. Voice activity detection does
    not (its loop over windows is Python's), and a load beside it (imports: Python's, holding the GIL)
    would slow it by as much as the load takes. A stage that reaches its model first waits for the load
    under way (`models.loaded_once`); a load that fails here fails again, with its error, in the stage.
    Only when the recording is recognised (not for given words).

    The later stages' models not for recordings over WARM_UP_MAX_S: there the loads are a small share of
    the time, and the models would add their memory to the audio's and the decoders' at the peak of
    recognition."""
    if run.words is None:
        threading.Thread(target=_prepare, args=(run,), name=WARM_UP_THREAD, daemon=True).start()


def _prepare(run: Run) -> None:
    def quietly(load: Callable[[], object]) -> bool:
        try:
            load()
            return True
        except Exception:  # the stage loads it again and reports the error
            return False

    if not quietly(lambda: asr.load(run.options.recognition)):
        return  # the job fails as recognition starts: nothing more to load for it
    run.decoded.wait()
    longest = max((len(ch.samples) for ch in run.conv.channels if ch.samples is not None), default=0)
    if not longest or longest > WARM_UP_MAX_S * ASR_RATE:
        return  # not decoded (it failed), or a long recording
    run.speech_found.wait()
    for stage in STAGES:
        if stage.prepare is not None and stage.runs(run):
            quietly(functools.partial(stage.prepare, run))


def _release_recognition_audio(run: Run) -> None:
    """After diarization only the voice features may read the 16 kHz copy of the audio."""
    keep = run.options.voice_features and ingest.reads_recognition_copy(run.path, run.options.ingest)
    run.audio_bytes = max(run.audio_bytes, _audio_bytes(run))
    for channel in run.conv.channels:
        channel.release(keep_samples=keep)
    give_back_memory(run.audio_bytes)


def _voice(run: Run) -> None:
    ingest.attach_originals(run.path, run.options.ingest, run.conv)  # decoded now, as no earlier stage reads it
    voice.run(run.conv)


def _release_audio(run: Run) -> None:
    run.audio_bytes = max(run.audio_bytes, _audio_bytes(run))
    for channel in run.conv.channels:
        channel.release()
    give_back_memory(run.audio_bytes)


def _audio_bytes(run: Run) -> int:
    """The size of the channels' audio held now (the measure of how much a recording's stages allocated)."""
    return sum(audio.nbytes for channel in run.conv.channels for audio in (channel.samples, channel.original)
               if audio is not None)


STAGES = (
    Stage("decode", "Decode the recording into channels", "ingest", _always,
          lambda r: ingest.load_channels(r.path, r.options.ingest, r.conv)),
    Stage("asr", "Recognise speech per channel", "transcription", _always, _recognise,
          needs=lambda o: asr.needs(o.recognition)),
    Stage("vocabulary", "Custom vocabulary: spoken forms and corrections", "transcription",
          lambda r: r.words is None and bool(r.options.vocabulary.terms),
          lambda r: vocabulary.run(r.conv, r.options.vocabulary, asr.load(r.options.recognition).hf_tokenizer)),
    Stage("diarize", "Tell the speakers of a one-channel recording apart", "transcription",
          lambda r: r.words is None and diarize.applies(r.conv, r.options.diarization),
          lambda r: diarize.run(r.conv, r.options.diarization, identify.names_anyone(r.options.identify)),
          prepare=lambda r: diarize.prepare(r.options.diarization),
          needs=lambda o: diarize.needs(o.diarization) if ingest.may_leave_unnamed(o.ingest) else ()),
    Stage("speakers", "Name the speakers who are enrolled", "transcription",
          lambda r: identify.applies(r.conv, r.options.identify),
          lambda r: identify.run(r.conv, r.options.identify, bool(r.options.diarization.speaker_names)),
          then=_release_recognition_audio, needs=lambda o: identify.needs(o.identify)),
    Stage("punctuation", "Split punctuation", "transcription", _always,
          lambda r: punctuation.run(r.conv, r.options.advanced_punctuation)),
    Stage("turns", "Speaker turns and voice activity", "transcription", _always, lambda r: turns.run(r.conv)),
    Stage("detect", "Detectors and transcript redaction", "analytics", lambda r: bool(r.options.detect.detectors),
          lambda r: detect.run(r.conv, r.options.detect), needs=lambda o: detect.needs(o.detect)),
    Stage("voice", "Word-level voice features", "analytics", lambda r: r.options.voice_features, _voice,
          then=_release_audio),
    Stage("sentiment", "Sentence sentiment", "analytics", lambda r: sentiment.needed(r.options.sentiment),
          lambda r: sentiment.run(r.conv, r.options.sentiment), prepare=lambda r: sentiment.prepare(r.options.sentiment),
          needs=lambda o: sentiment.needs(o.sentiment),
          preload=lambda o: sentiment.prepare(o.sentiment) if sentiment.needed(o.sentiment) else None),
    Stage("verbnoun", "Verb-noun pairs", "analytics", lambda r: r.options.verb_noun_pairs.enabled,
          lambda r: verbnoun.run(r.conv, r.options.verb_noun_pairs),
          prepare=lambda r: verbnoun.prepare(r.options.verb_noun_pairs), needs=lambda o: verbnoun.needs(o.verb_noun_pairs),
          preload=lambda o: verbnoun.prepare(o.verb_noun_pairs) if o.verb_noun_pairs.enabled else None),
    Stage("knowledge", "Keywords and topics", "analytics", lambda r: r.options.discovery.enabled,
          lambda r: knowledge.run(r.conv, r.options.discovery), prepare=lambda r: knowledge.prepare(r.options.discovery),
          needs=lambda o: knowledge.needs(o.discovery),
          preload=lambda o: knowledge.prepare(o.discovery) if o.discovery.enabled else None),
    Stage("metrics", "Conversation metrics", "analytics", lambda r: bool(r.options.metrics.groups),
          lambda r: metrics.run(r.conv, r.options.metrics)),
    Stage("insights", "Call insights: reason, outcome, promises, answers", "analytics",
          lambda r: r.options.insights.requested, lambda r: insights.run(r.conv, r.options.insights),
          prepare=lambda r: insights.prepare(r.options.insights), needs=lambda o: insights.needs(o.insights)),
    Stage("spotting", "Keyword groups", "analytics", lambda r: bool(r.options.keyword_groups),
          lambda r: spotting.run(r.conv, r.options.keyword_groups)),
    Stage("categories", "Categories", "analytics", lambda r: r.options.categories_requested,
          lambda r: categories.run(r.conv, r.options.categories)),
    Stage("classify", "Classifiers", "analytics", lambda r: bool(r.options.classifiers),
          lambda r: classify.run(r.conv, r.options.classifiers)),
)
PUBLISH = ("publish", "Write the outputs", "publish")  # run by the runner after the stages

StageEvent = Callable[[str, str], None]  # (stage name, task status)
SecondsEvent = Callable[[float], None]

# Configuration parts this version accepts but does not compute yet: (test, what is ignored).
_NOT_YET = (
    (lambda o: not o.number_formatting, "transcript.formatting.enableNumberFormatting false"),
    (lambda o: o.profanity_filtering, "transcript.contentFiltering.enableProfanityFiltering"),
)


def needed(options: Options) -> tuple[str, ...]:
    """The bundled models (`engines.inventory` keys) that some recording may need under these options: what
    a run checks is installed before it reads any audio, and what `speechproc doctor` calls needed."""
    keys = [key for stage in STAGES if stage.needs is not None for key in stage.needs(options)]
    return tuple(dict.fromkeys(keys))


def preload(options: Options) -> None:
    """Load the models of the stages that will run under `options` whose loading starts no thread (the parser,
    the sentence encoder and what it computed once, VADER): what the process that forks the workers loads
    first (`batch.preload`). Inside `one_thread_each`, as in a worker: torch starts no thread pool here,
    and what is computed here (the taxonomy's embeddings, where not cached) has the numbers a worker's own
    would have. A load that fails raises; the caller leaves it to the stage."""
    with one_thread_each():
        for stage in STAGES:
            if stage.preload is not None:
                stage.preload(options)


def preflight(options: Options) -> None:
    """What a run checks before it reads any audio: every bundled model it needs is installed, a model file
    or server the configuration names is there (ConfigurationError, exit 2, naming what to do)."""
    inventory.require(needed(options))
    insights.check(options.insights)


def new_tasks(media_id: str) -> list[dict[str, Any]]:
    """One pending task per stage, with ids stable for the media item."""
    tasks = [(st.name, st.display, st.phase) for st in STAGES] + [PUBLISH]
    return [{"taskId": str(uuid.uuid5(uuid.UUID(media_id), name)), "name": name, "display": display,
             "phase": phase, "status": "pending"} for name, display, phase in tasks]


def unsupported_warnings(options: Options) -> list[tuple[int, str]]:
    return [(E.FEATURE_NOT_AVAILABLE, f"{what} is not computed by this version of speechproc and was ignored")
            for test, what in _NOT_YET if test(options)]


def _take_words(conv: Conversation, words: list[RecognizedWord]) -> None:
    """Use given words (an aligned human transcript) instead of recognising; their speakers name the parties."""
    conv.recognized = list(words)
    speakers = list(dict.fromkeys(w.speaker for w in words))
    if len(conv.channels) == 1 and speakers != [conv.channels[0].speaker_name]:
        conv.diarized_speakers = speakers


def analyse(path: Path, options: Options, conv: Conversation, on_stage: StageEvent,
            on_seconds: SecondsEvent | None = None, words: list[RecognizedWord] | None = None) -> None:
    """Run every stage on one recording; raise a SpeechprocError naming the failed stage.

    A stage whose predicate says no is not run, and its task is `skipped`. With `words` (an aligned
    transcript) recognition and diarization are replaced by those words. Numeric kernels run on one thread
    each meanwhile (`concurrency.one_thread_each`): the results do not depend on the threads or workers."""
    run = Run(path, options, conv, on_seconds, words)
    with one_thread_each():
        _run_stages(run, on_stage)
    for code, message in unsupported_warnings(options):
        conv.warn(code, message)


def _run_stages(run: Run, on_stage: StageEvent) -> None:
    _warm_up(run)
    try:
        _each_stage(run, on_stage)
    finally:  # a warm-up still waiting stops (there are no channels) or goes on
        run.decoded.set()
        run.speech_found.set()


def _each_stage(run: Run, on_stage: StageEvent) -> None:
    for stage in STAGES:
        if not stage.runs(run):
            on_stage(stage.name, "skipped")
        else:
            on_stage(stage.name, "started")
            limit_torch()  # loaded by an earlier stage or the warm-up, not through a model load
            try:
                with traced(stage.name):
                    stage.step(run)
            except E.SpeechprocError:
                on_stage(stage.name, "failed")
                raise
            except Exception as exc:  # a bug or a library failure: report it against the stage, keep the batch going
                on_stage(stage.name, "failed")
                raise E.SpeechprocError(E.STAGE_FAILED, f"stage {stage.name} failed: {type(exc).__name__}: {exc}",
                                        status=500) from exc
            on_stage(stage.name, "finished")
        if stage.name == "decode":
            run.decoded.set()
        if stage.then is not None:
            stage.then(run)
