"""Batched recognition: packing speech into chunks, mapping chunk times back, telling a broken chunk, and
decoding such a chunk again on the sequential path (on the committed payment call, whose read-out card
number is what batching gets wrong)."""
from __future__ import annotations

import re
from difflib import SequenceMatcher

import numpy as np
import pytest

from conftest import SAMPLES, truth_for
from speechproc import media
from speechproc.engines import batching
from speechproc.engines.batching import CHUNK_S, RATE, Chunk, ChunkWord
from textnorm import wer

# tiny.en on the payment call's agent: 12.7-27.3 % measured (WER_LOG) under five CTranslate2 CPU paths (see
# test_stage_asr.py)
MAX_AGENT_WER = 0.40
# What the caller reads out: the card number, expiry, security code and phone number, in order.
CALLER_DIGITS = truth_for("payment.flac")["card_number"] + "0427" + "731" + "5552124439"


def seconds(s: float) -> int:
    return round(s * RATE)


def test_pack_keeps_every_piece_once_in_order_and_no_chunk_over_the_limit():
    pieces = [(seconds(a), seconds(b)) for a, b in [(0, 10), (12, 25), (26, 30), (40, 69), (70, 71), (80, 81)]]
    chunks = batching.pack(1, pieces)
    assert [p for chunk in chunks for p in chunk.pieces] == pieces
    assert all(chunk.channel == 1 and chunk.samples <= CHUNK_S * RATE for chunk in chunks)
    assert [len(chunk.pieces) for chunk in chunks] == [3, 2, 1]  # 10 + 13 + 4 s; 29 + 1 s; 1 s
    assert batching.pack(0, []) == []


def test_without_vad_the_whole_channel_is_cut_in_windows_of_30_seconds():
    pieces = batching.speech_pieces(np.zeros(seconds(70), dtype=np.float32), vad=False)
    assert pieces == [(0, seconds(30)), (seconds(30), seconds(60)), (seconds(60), seconds(70))]
    assert batching.speech_pieces(np.zeros(0, dtype=np.float32), vad=True) == []


def test_pieces_are_cut_at_the_length_asked_for():
    pieces = batching.speech_pieces(np.zeros(seconds(70), dtype=np.float32), vad=False, longest_s=19)
    assert pieces == [(0, seconds(19)), (seconds(19), seconds(38)), (seconds(38), seconds(57)),
                      (seconds(57), seconds(70))]


def test_vad_finds_the_speech_of_a_channel_in_pieces_of_at_most_30_seconds():
    track = media.decode(SAMPLES / "call.flac")
    caller = np.ascontiguousarray(track.samples[1])
    pieces = batching.speech_pieces(caller, vad=True)
    assert pieces and all(0 < end - start <= CHUNK_S * RATE for start, end in pieces)
    assert all(a[1] <= b[0] for a, b in zip(pieces, pieces[1:]))
    turns = [t for t in truth_for("call.flac")["turns"] if t["speaker"] == "Caller"]
    speech = sum(end - start for start, end in pieces) / RATE
    spoken = sum(t["e"] - t["s"] for t in turns) / 1000
    assert 0.8 * spoken <= speech <= min(1.5 * spoken, caller.shape[0] / RATE)


def test_a_word_moves_with_the_piece_that_holds_its_middle():
    chunk = Chunk(0, ((seconds(5), seconds(8)), (seconds(20), seconds(22))))
    assert chunk.samples == seconds(5)
    assert chunk.original_times(0.0, 0.5) == (5.0, 5.5)
    assert chunk.original_times(1.5, 2.0) == (6.5, 7.0)
    assert chunk.original_times(3.5, 4.0) == (20.5, 21.0)
    assert chunk.original_times(2.6, 3.2) == (7.6, 8.2)  # mostly before the seam: it ends just after 8 s
    assert chunk.original_times(2.9, 3.5) == (19.9, 20.5)  # mostly after: it starts just before 20 s
    samples = np.arange(seconds(30), dtype=np.float32)
    assert np.array_equal(chunk.audio(samples), np.concatenate([samples[seconds(5):seconds(8)],
                                                                 samples[seconds(20):seconds(22)]]))


def words_every(step: float, until: float) -> list[ChunkWord]:
    return [ChunkWord(f" word{k}", t, t + 0.4, 0.9) for k, t in enumerate(np.arange(0.2, until, step))]


@pytest.mark.parametrize("words, text, length, reason", [
    (words_every(0.6, 20), "a normal sentence about a bill and a payment that was made", 20, None),
    ([], "", 2.0, None),  # a short noise without words
    ([], "", 12.0, None),  # no word at all: music or noise the VAD let through, not a decoder that stopped
    (words_every(0.6, 8), "the first part and nothing after it", 20, "has speech without words"),  # stopped early
    (words_every(0.6, 20)[5:], "began late", 20, "has speech without words"),
    (words_every(0.6, 6) + [ChunkWord(" x", 10.5, 11, 0.9)], "a gap in the middle", 11.2, "has speech without words"),
    (words_every(0.6, 20), "4.5.3.9." + "5." * 80, 20, "repeats itself"),
])
def test_a_chunk_is_broken_when_it_loops_or_leaves_speech_without_words(words, text, length, reason):
    assert batching.broken(words, text, length) == reason


def test_without_vad_a_chunk_holds_silences_and_only_a_loop_breaks_it():
    """Without VAD a chunk is the channel cut every 30 s, silences included: a gap without words is normal."""
    stopped_early = words_every(0.6, 8)
    assert batching.broken(stopped_early, "the first part", 30, all_speech=False) is None
    assert batching.broken(stopped_early, "4.5.3.9." + "5." * 80, 30, all_speech=False) == "repeats itself"


def said(text: str) -> list[ChunkWord]:
    return [ChunkWord(" " + token, 0.0, 0.0, 0.9) for token in text.split()]


READ_OUT = "Hi, I would like to pay my bill. It is 4 .5 .3 .9 .1 .4 .8 .0 .3 .4 .3 .6 .4 .6 .7 .4 .2 .7 .3 .1"


@pytest.mark.parametrize("text, run", [
    (READ_OUT + " .5" * 60 + " .9", 60),  # a loop at the end of varied speech
    ("thank you thank you thank you so much", 3),
    ("no no no", 3),
    ("a b c d " * 9, 9),  # a phrase of four words
    ("5 5 5 5 5 5 5", 7),  # 555-5555 read out digit by digit: not a loop
    (". . . . . . . . . hello", 1),  # punctuation is not a word
    ("", 0),
])
def test_the_longest_run_of_a_repeated_word_or_phrase(text, run):
    assert batching.repeated_run(said(text)) == run


def test_a_loop_after_varied_speech_breaks_the_chunk():
    text = READ_OUT + " .5" * 60 + " .9"
    assert batching.broken(said(text), text, 20) == "repeats itself"
    assert batching.broken(said(READ_OUT), READ_OUT, 6, all_speech=False) is None


def test_a_loop_the_sequential_path_leaves_is_said_once():
    looped = said(READ_OUT + " .5" * 60 + " .9")
    kept = batching.without_loops(looped)
    assert [w.text for w in kept] == [w.text for w in said(READ_OUT + " .5 .9")]
    assert batching.without_loops(said("5 5 5 5 5 5 5 and thank you thank you")) == said(
        "5 5 5 5 5 5 5 and thank you thank you")  # short repeats are speech: kept


def test_compression_ratio_is_high_only_for_repeated_text():
    assert batching.compression_ratio("") == 0.0
    assert batching.compression_ratio("Hi, I would like to pay my bill by credit card.") < 2.4
    assert batching.compression_ratio("5." * 100) > 2.4


def payment_channels() -> list[np.ndarray]:
    return [np.ascontiguousarray(samples) for samples in media.decode(SAMPLES / "payment.flac").samples]


def assert_payment_call_heard(texts: list[str]) -> None:
    """The agent's words within MAX_AGENT_WER; the caller's digits those read out, give or take a few (a loop
    adds dozens, a chunk that stops early loses the phone number), and no word or phrase said over and over
    (the recogniser may write the digits one word each or in groups: their number is not counted)."""
    agent, caller = texts
    reference = " ".join(t["text"] for t in truth_for("payment.flac")["turns"] if t["speaker"] == "Agent")
    assert wer(reference, agent) <= MAX_AGENT_WER
    heard = re.sub(r"\D", "", caller)
    assert SequenceMatcher(None, heard, CALLER_DIGITS).ratio() >= 0.8, caller
    assert batching.repeated_run([ChunkWord(t, 0, 0, 1) for t in caller.split()]) < batching.LOOP_REPEATS, caller


def recognised_text(channels: list[np.ndarray]) -> list[str]:
    from speechproc.engines.models import load_whisper

    model = load_whisper("tiny.en", "cpu", "int8", 2)
    found: list[list[tuple[float, str]]] = [[] for _ in channels]
    for chunk, words, _ in batching.recognise(channels, model, 8, True, {"language": "en", "beam_size": 5}, 2,
                                              again=lambda: model):
        found[chunk.channel].extend((chunk.original_times(w.start, w.end)[0], w.text) for w in words)
    return [" ".join(text for _, text in sorted(words)) for words in found]


@pytest.mark.slow
def test_batched_recognition_keeps_the_read_out_numbers_of_the_payment_call():
    assert_payment_call_heard(recognised_text(payment_channels()))


@pytest.mark.slow
def test_a_chunk_that_loops_or_stops_early_is_decoded_again_sequentially(monkeypatch):
    """Whatever the CPU makes of the batch, a looping or truncated result is replaced."""
    channels = payment_channels()
    real = batching._decode_batch
    broken_kinds = iter(["loop", "truncated"] * 10)

    def breaking(pipeline, audios, options):
        results = []
        for words, text in real(pipeline, audios, options):
            if next(broken_kinds) == "loop":
                results.append((words + [ChunkWord(" 5.", 0.0, 0.1, 0.5)] * 60, text + "5." * 60))
            else:
                results.append(([w for w in words if w.end < 2.0], text[:20]))
        return results

    monkeypatch.setattr(batching, "_decode_batch", breaking)
    reasons = []
    monkeypatch.setattr(batching, "_decode_sequentially", recording(batching._decode_sequentially, reasons))
    texts = recognised_text(channels)
    assert len(reasons) == 2  # both channels' chunks (one each) were decoded again
    assert_payment_call_heard(texts)


def recording(function, calls: list):
    def wrapper(*args, **kwargs):
        calls.append(args)
        return function(*args, **kwargs)
    return wrapper


def chunks_of(count: int) -> list[Chunk]:
    return [Chunk(k % 2, ((seconds(30 * k), seconds(30 * k + 29)),)) for k in range(count)]


@pytest.mark.parametrize("count, size, sizes", [
    (23, 4, [4, 4, 4, 4, 4, 3]),
    (23, 8, [8, 8, 7]),
    (9, 8, [5, 4]),  # two batches, as even as can be
    (3, 2, [2, 1]),
    (1, 8, [1]),
    (0, 8, []),
])
def test_batches_are_the_fewest_of_at_most_the_size_and_even(count, size, sizes):
    chunks = chunks_of(count)
    found = batching.batches(chunks, size)
    assert [len(batch) for batch in found] == sizes
    assert [chunk for batch in found for chunk in batch] == chunks  # every chunk once, in order
    assert all(len(batch) <= size for batch in found)


@pytest.mark.slow
def test_the_words_do_not_depend_on_the_batches_or_the_decoders():
    """Each chunk's words are placed on their own (ChunkWordTimes), so one decoder of eight chunks, two of four
    and three of one give the same words, times and probabilities."""
    from speechproc.conversation import Channel
    from speechproc.stages.options import RecognitionOptions
    from speechproc.stages.recognition.asr import transcribe_batched

    track = media.decode(SAMPLES / "call.flac")
    found = []
    for threads, batch_size in ((1, 8), (2, 8), (3, 3)):
        channels = [Channel(k, name, np.ascontiguousarray(track.samples[k]), media.ASR_RATE)
                    for k, name in enumerate(("Agent", "Caller"))]
        found.append(transcribe_batched(channels, RecognitionOptions(threads=threads, batch_size=batch_size)))
    assert found[0] and found[0] == found[1] == found[2]


def test_on_a_gpu_the_words_are_placed_by_faster_whisper_itself():
    """The encoder output of a GPU cannot be cut per chunk here: the whole batch goes to faster-whisper."""
    calls = []

    class Model:
        frames_per_second = 100

        def add_word_timestamps(self, *args):
            calls.append(args)
            return 12.5

    class OnGpu:
        device = "cuda"

    segments = [[{"seek": 0}], [{"seek": 3000}]]
    found = batching.ChunkWordTimes(Model()).add_word_timestamps(segments, None, OnGpu(), [3000, 3000], "", "", 0.0)
    assert found == 12.5 and len(calls) == 1 and calls[0][0] is segments and calls[0][-1] == 0.0


@pytest.mark.slow
def test_a_decode_that_samples_gives_the_same_words_in_every_run():
    """A decode at a temperature samples (as Whisper's fallback does on a window it cannot decode greedily):
    two runs of it, each in a process of its own, give the same words (the generators are seeded)."""
    import subprocess
    import sys

    program = (
        "import numpy as np\n"
        "from speechproc import media\n"
        "from speechproc.engines import batching\n"
        "from speechproc.engines.models import load_whisper\n"
        f"call = media.decode({str(SAMPLES / 'call.flac')!r}).samples[0]\n"
        "starts = np.random.default_rng(4).integers(0, len(call) - 4000, 60)\n"
        "babble = np.concatenate([call[s:s + 4000] for s in starts])\n"
        "words = batching._decode_sequentially(load_whisper('tiny.en'), babble,\n"
        "                                      dict(language='en', beam_size=5, temperature=[0.9]))\n"
        "print('|'.join(w.text for w in words))\n")
    runs = [subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True).stdout
            for _ in range(2)]
    assert runs[0].strip() and runs[0] == runs[1]


@pytest.mark.slow
def test_chunks_decoded_again_sample_one_at_a_time_in_time_order_whatever_the_decoders():
    """Every chunk decoded again (here all of them, sampling at a temperature as the fallback does) goes, with
    two decoders, to the single-worker recogniser, one at a time as its turn to be yielded comes, so two
    decoders give the words one gives (each in a process of its own: the generators are seeded on first
    use). Decoded again by the decoders' own replicas, a sampled chunk's words depended on which replica
    took it."""
    import subprocess
    import sys

    program = (
        "import sys, threading\n"
        "import numpy as np\n"
        "from speechproc import media\n"
        "from speechproc.engines import batching\n"
        "from speechproc.engines.models import load_whisper\n"
        "decoders = int(sys.argv[1])\n"
        f"channels = [np.ascontiguousarray(c) for c in media.decode({str(SAMPLES / 'call.flac')!r}).samples]\n"
        "single = load_whisper('tiny.en', 'cpu', 'int8', 1, 1)\n"
        "model = single if decoders == 1 else load_whisper('tiny.en', 'cpu', 'int8', 1, decoders)\n"
        "real, calls = batching._decode_sequentially, []\n"
        "def sampling(recogniser, audio, options):\n"
        "    calls.append((recogniser is single, threading.current_thread().name.rsplit('-', 1)[0]))\n"
        "    return real(recogniser, audio, {**options, 'temperature': [0.9]})\n"
        "batching._decode_sequentially = sampling\n"
        "batching.broken = lambda *args, **kwargs: 'repeats itself'\n"
        "decoded = list(batching.recognise(channels, model, 2, True, {'language': 'en', 'beam_size': 5},\n"
        "                                  decoders, again=None if decoders == 1 else lambda: single))\n"
        "thread = 'speechproc-decoder' if decoders == 1 else 'speechproc-again'\n"
        "assert len(decoded) > 2 and calls == [(True, thread)] * len(decoded), calls\n"
        "print('|'.join(f'{c.channel} {c.pieces[0][0]}: ' + ' '.join(w.text for w in words)\n"
        "               for c, words, _ in decoded))\n")
    runs = [subprocess.run([sys.executable, "-c", program, str(decoders)], capture_output=True, text=True,
                           check=True).stdout for decoders in (1, 2)]
    assert len(runs[0].split()) > 50 and runs[0] == runs[1]


@pytest.mark.parametrize("chunk_s", [0, 31, -5])
def test_a_chunk_longer_than_whisper_s_window_or_empty_is_refused(chunk_s):
    with pytest.raises(ValueError, match="chunk_s"):
        next(batching.recognise([np.zeros(RATE, dtype=np.float32)], None, 2, False, {}, chunk_s=chunk_s))


def test_several_decoders_need_a_single_worker_recogniser_for_the_chunks_decoded_again():
    with pytest.raises(ValueError, match="again"):
        next(batching.recognise([np.zeros(RATE, dtype=np.float32)], None, 2, False, {}, decoders=2))


@pytest.mark.parametrize("longest, frames", [(3.0, 2000), (19.0, 2000), (19.5, 3000), (30.0, 3000)])
def test_a_batch_of_short_chunks_is_encoded_in_a_20_second_window(longest, frames):
    assert batching.window_frames(longest, 100) == frames


@pytest.mark.slow
def test_the_fitted_window_cuts_only_padding_and_hears_a_short_chunk_as_the_full_window_does(monkeypatch):
    """A batch of short chunks reaches the encoder as 20 s of features (30 s with `shortWindow` off), a batch
    holding a longer one as 30 s; the short window's words match the full window's (the same machine: a word
    error bound, not words)."""
    from faster_whisper import WhisperModel

    from speechproc.engines.models import load_whisper

    model = load_whisper("tiny.en", "cpu", "int8", 1)
    shapes: list[int] = []
    real_encode = WhisperModel.encode
    monkeypatch.setattr(WhisperModel, "encode", lambda self, features, *a, **k: (
        shapes.append(features.shape[-1]), real_encode(self, features, *a, **k))[1])
    agent = payment_channels()[0]
    speech = [piece for piece in batching.speech_pieces(agent, True)]
    short = [np.concatenate([agent[s:e] for s, e in speech])[:12 * RATE]]
    options = {"language": "en", "beam_size": 5}
    fitted = batching._decode_batch(batching.fitted_pipeline(batching.ChunkWordTimes(model)), short, options)
    full = batching._decode_batch(batching.fitted_pipeline(batching.ChunkWordTimes(model), False), short, options)
    longer = [np.concatenate([agent[s:e] for s, e in speech])[:25 * RATE]]
    batching._decode_batch(batching.fitted_pipeline(batching.ChunkWordTimes(model)), longer, options)
    assert shapes == [2000, 3000, 3000]
    fitted_text, full_text = (" ".join(w.text for w in result[0][0]) for result in (fitted, full))
    assert len(full_text.split()) >= 15
    assert wer(full_text, fitted_text) <= 0.2
