"""Speaker diarization for one channel that holds several speakers (the mono fallback).

1. Speech regions from the Silero VAD that faster-whisper ships.
2. Speaker embeddings from the Resemblyzer voice encoder over sliding windows inside each region
   (WINDOW_S long, one every HOP_S; a region shorter than a window gets one window of its own).
3. Agglomerative clustering (average linkage, cosine distance) of the window embeddings, then a few
   rounds of re-assignment to the nearest cluster centroid. The speaker count is the configured one,
   or estimated (`estimate_speakers`): the largest k up to maxSpeakers for which every one of the k
   clusters holds at least MIN_SPEAKER_SHARE of the speech (and MIN_SPEAKER_MS) and the clusters are either clearly apart
   (centroid cosine similarity below DISTINCT_SIMILARITY), or not alike enough to be one voice (below
   SAME_SIMILARITY) and each takes MIN_TURNS turns of TURN_MS or more, as conversation parties do.
   When no k passes, the recording has one speaker.
4. Each window labels the stretch of time nearest its centre; the labelled stretches are the segments.
5. Each recognised word takes the speaker whose segments overlap it most, so a word is never split and
   turn boundaries fall between words.
"""
from __future__ import annotations

import bisect
from dataclasses import dataclass

import numpy as np

from ..conversation import Conversation
from ..media import ASR_RATE
from ..models import load_voice_encoder
from ..options import DEFAULT_MAX_SPEAKERS, DiarizationOptions

WINDOW_S = 1.6
HOP_S = 0.4
MIN_SPEAKER_SHARE = 0.15  # of the speech, for a cluster to count as a speaker
MIN_SPEAKER_MS = 1000  # and at least this much of it
DISTINCT_SIMILARITY = 0.65  # centroids less alike than this are different speakers
SAME_SIMILARITY = 0.86  # centroids at least this alike are one speaker
TURN_MS = 2000  # a stretch this long counts as a turn at speaking
MIN_TURNS = 3  # turns each cluster needs when the centroids are neither distinct nor the same
RUN_GAP_MS = 1000
MAX_LINKAGE_WINDOWS = 2000
EMBED_BATCH = 256
REFINE_ROUNDS = 3
MEL_FRAME_MS = 10
VAD_LEVEL = 0.1  # -20 dBFS
_NORM_DBFS = -30.0  # Resemblyzer's training level


@dataclass(frozen=True)
class Segment:
    s: int  # ms
    e: int
    speaker: int  # 0-based, numbered by first appearance


# --- features --------------------------------------------------------------------------------------------

def _hz_to_mel(f: np.ndarray) -> np.ndarray:
    """Slaney's mel scale (linear below 1 kHz, logarithmic above), as librosa uses by default."""
    f = np.asarray(f, dtype=np.float64)
    log_step = np.log(6.4) / 27.0
    return np.where(f < 1000.0, f * 3.0 / 200.0, 15.0 + np.log(np.maximum(f, 1e-9) / 1000.0) / log_step)


def _mel_to_hz(m: np.ndarray) -> np.ndarray:
    log_step = np.log(6.4) / 27.0
    return np.where(m < 15.0, m * 200.0 / 3.0, 1000.0 * np.exp(log_step * (m - 15.0)))


def mel_filterbank(rate: int = ASR_RATE, n_fft: int = 400, n_mels: int = 40) -> np.ndarray:
    """Slaney-normalised triangular mel filters, shape (n_mels, n_fft // 2 + 1)."""
    mel_f = _mel_to_hz(np.linspace(_hz_to_mel(0.0), _hz_to_mel(rate / 2), n_mels + 2))
    fft_f = np.fft.rfftfreq(n_fft, 1.0 / rate)
    ramps = mel_f[:, None] - fft_f[None, :]
    fdiff = np.diff(mel_f)
    lower = -ramps[:-2] / fdiff[:-1, None]
    upper = ramps[2:] / fdiff[1:, None]
    weights = np.maximum(0.0, np.minimum(lower, upper))
    return (weights * (2.0 / (mel_f[2:] - mel_f[:-2]))[:, None]).astype(np.float32)


_FILTERS = mel_filterbank()


def mel_spectrogram(samples: np.ndarray) -> np.ndarray:
    """Resemblyzer's input: 40-band mel power spectrogram (not log), 25 ms windows every 10 ms, (frames, 40)."""
    n_fft, hop = 400, ASR_RATE * MEL_FRAME_MS // 1000
    padded = np.pad(samples.astype(np.float32), n_fft // 2)
    n_frames = 1 + (len(padded) - n_fft) // hop
    window = (0.5 - 0.5 * np.cos(2 * np.pi * np.arange(n_fft) / n_fft)).astype(np.float32)  # periodic Hann
    out = np.empty((n_frames, _FILTERS.shape[0]), dtype=np.float32)
    step = 8192
    for lo in range(0, n_frames, step):
        idx = (np.arange(lo, min(lo + step, n_frames)) * hop)[:, None] + np.arange(n_fft)[None, :]
        power = np.abs(np.fft.rfft(padded[idx] * window, axis=1)) ** 2
        out[lo: lo + len(idx)] = power @ _FILTERS.T
    return out


def _levelled(samples: np.ndarray) -> np.ndarray:
    """Scale so the loud frames (90th percentile of 50 ms RMS) sit at -20 dBFS: Silero misses quiet speech."""
    frame = ASR_RATE // 20
    n = len(samples) // frame
    if n == 0:
        return samples
    rms = np.sqrt(np.mean(np.square(samples[: n * frame].reshape(n, frame), dtype=np.float64), axis=1))
    loud = float(np.percentile(rms, 90))
    return samples * np.float32(VAD_LEVEL / loud) if loud > 1e-6 else samples


def speech_regions(samples: np.ndarray) -> list[tuple[int, int]]:
    """Speech spans in ms from the Silero VAD on levelled audio (short pauses bridged)."""
    from faster_whisper.vad import VadOptions, get_speech_timestamps

    options = VadOptions(min_silence_duration_ms=300, speech_pad_ms=60, min_speech_duration_ms=200)
    chunks = get_speech_timestamps(_levelled(samples), options, sampling_rate=ASR_RATE)
    return [(c["start"] * 1000 // ASR_RATE, c["end"] * 1000 // ASR_RATE) for c in chunks]


def _normalised(samples: np.ndarray, regions: list[tuple[int, int]]) -> np.ndarray:
    """Raise the level so speech sits at Resemblyzer's -30 dBFS (never lowered, as Resemblyzer does)."""
    speech = np.concatenate([samples[s * ASR_RATE // 1000: e * ASR_RATE // 1000] for s, e in regions])
    rms = float(np.sqrt(np.mean(np.square(speech, dtype=np.float64)))) if len(speech) else 0.0
    if rms <= 1e-9:
        return samples
    gain = 10 ** ((_NORM_DBFS - 20 * np.log10(rms)) / 20)
    return samples * np.float32(gain) if gain > 1 else samples


@dataclass
class Windows:
    starts: np.ndarray  # first mel frame of each window
    lengths: np.ndarray  # frames in each window
    spans: np.ndarray  # (n, 2) ms of time each window labels


def plan_windows(regions: list[tuple[int, int]], window_s: float = WINDOW_S, hop_s: float = HOP_S) -> Windows:
    """Sliding windows inside each region; each labels the stretch nearest its centre."""
    win, hop = round(window_s * 1000), round(hop_s * 1000)
    planned: list[tuple[int, int, int, int]] = []  # (start, length, labelled from, labelled to) in ms
    for s, e in regions:
        if e - s <= win:
            planned.append((s, e - s, s, e))
            continue
        firsts = list(range(s, e - win + 1, hop))
        if firsts[-1] + win < e:
            firsts.append(e - win)
        centres = [f + win // 2 for f in firsts]
        bounds = [s] + [(a + b) // 2 for a, b in zip(centres, centres[1:])] + [e]
        planned += [(f, win, bounds[k], bounds[k + 1]) for k, f in enumerate(firsts)]
    table = np.array(planned, dtype=np.int64).reshape(-1, 4)
    return Windows(table[:, 0] // MEL_FRAME_MS, np.maximum(table[:, 1] // MEL_FRAME_MS, 1), table[:, 2:])


def embed_windows(mel: np.ndarray, windows: Windows, weights: str | None = None) -> np.ndarray:
    """One L2-normalised 256-d embedding per window; short windows are tiled to the full length."""
    import torch

    encoder = load_voice_encoder(weights)
    full = int(windows.lengths.max()) if len(windows.lengths) else 0
    out = []
    with torch.inference_mode():
        for lo in range(0, len(windows.starts), EMBED_BATCH):  # batches keep memory flat on long recordings
            firsts, lengths = windows.starts[lo: lo + EMBED_BATCH], windows.lengths[lo: lo + EMBED_BATCH]
            batch = np.zeros((len(firsts), full, mel.shape[1]), dtype=np.float32)
            for i, (first, n) in enumerate(zip(firsts, lengths)):
                piece = mel[first: first + n]
                if len(piece):
                    batch[i] = np.resize(piece, (full, mel.shape[1])) if len(piece) < full else piece[:full]
            out.append(encoder(torch.from_numpy(batch)).cpu().numpy())
    emb = np.concatenate(out) if out else np.zeros((0, 256), dtype=np.float32)
    return emb / np.maximum(np.linalg.norm(emb, axis=1, keepdims=True), 1e-9)


# --- clustering ------------------------------------------------------------------------------------------

def _refine(emb: np.ndarray, labels: np.ndarray, k: int, rounds: int = REFINE_ROUNDS) -> np.ndarray:
    """Re-assign every window to its nearest centroid (cosine), keeping k clusters."""
    for _ in range(rounds):
        centroids = np.stack([emb[labels == c].mean(axis=0) if np.any(labels == c) else np.zeros(emb.shape[1])
                              for c in range(k)])
        centroids /= np.maximum(np.linalg.norm(centroids, axis=1, keepdims=True), 1e-9)
        new = np.argmax(emb @ centroids.T, axis=1)
        if np.array_equal(new, labels):
            break
        labels = new
    return labels


class _Dendrogram:
    """Average-linkage clustering of (at most MAX_LINKAGE_WINDOWS evenly spread) window embeddings;
    cut into k clusters, every window then joins its nearest centroid."""

    def __init__(self, emb: np.ndarray) -> None:
        from scipy.cluster.hierarchy import linkage

        self.emb = emb
        self.subset = np.linspace(0, len(emb) - 1, min(len(emb), MAX_LINKAGE_WINDOWS)).round().astype(int)
        self.tree = linkage(emb[self.subset], method="average", metric="cosine") if len(self.subset) > 1 else None

    def cut(self, k: int) -> np.ndarray:
        from scipy.cluster.hierarchy import fcluster

        if k <= 1 or self.tree is None:
            return np.zeros(len(self.emb), dtype=int)
        seed = np.full(len(self.emb), -1)
        seed[self.subset] = fcluster(self.tree, t=k, criterion="maxclust") - 1
        n = int(seed.max()) + 1
        centroids = np.stack([self.emb[seed == c].mean(axis=0) for c in range(n)])
        labels = np.argmax(self.emb @ centroids.T, axis=1)
        return _refine(self.emb, labels, n)


def _runs(spans: np.ndarray, labels: np.ndarray, label: int) -> list[int]:
    """Durations (ms) of the stretches one cluster holds the floor, its own pauses up to RUN_GAP_MS bridged."""
    runs: list[int] = []
    last_end: int | None = None
    for (s, e), lab in zip(spans.tolist(), labels.tolist()):
        if lab != label:
            last_end = None
            continue
        if last_end is not None and s - last_end <= RUN_GAP_MS:
            runs[-1] += e - s
        else:
            runs.append(e - s)
        last_end = e
    return runs


def _split_is_real(emb: np.ndarray, spans: np.ndarray, labels: np.ndarray, k: int) -> bool:
    """Whether k clusters are k speakers: each holds a real share of the speech, and the clusters are
    either far apart, or closer but each returning to the floor again and again, as the parties of a
    conversation do (one speaker's odd stretches, laughter or a change of microphone do not)."""
    if len(set(labels.tolist())) < k:
        return False
    durations = spans[:, 1] - spans[:, 0]
    per_cluster = np.bincount(labels, weights=durations, minlength=k)
    if per_cluster.min() < MIN_SPEAKER_MS or per_cluster.min() / max(float(durations.sum()), 1.0) < MIN_SPEAKER_SHARE:
        return False
    centroids = np.stack([emb[labels == c].mean(axis=0) for c in range(k)])
    centroids /= np.maximum(np.linalg.norm(centroids, axis=1, keepdims=True), 1e-9)
    closest = float(np.max((centroids @ centroids.T)[np.triu_indices(k, 1)]))
    if closest < DISTINCT_SIMILARITY:
        return True
    if closest >= SAME_SIMILARITY:
        return False
    return all(sum(r >= TURN_MS for r in _runs(spans, labels, c)) >= MIN_TURNS for c in range(k))


def estimate_speakers(emb: np.ndarray, spans: np.ndarray, max_speakers: int = DEFAULT_MAX_SPEAKERS,
                      tree: _Dendrogram | None = None) -> int:
    """The largest k in 2..max_speakers whose clustering passes `_split_is_real`; 1 when none does."""
    tree = tree or _Dendrogram(emb)
    passing = [k for k in range(2, min(max_speakers, len(emb)) + 1) if _split_is_real(emb, spans, tree.cut(k), k)]
    return max(passing, default=1)


def cluster(emb: np.ndarray, spans: np.ndarray, speakers: int | None = None,
            max_speakers: int = DEFAULT_MAX_SPEAKERS) -> np.ndarray:
    """A speaker label per window, 0-based, numbered by first appearance."""
    if len(emb) == 0:
        return np.zeros(0, dtype=int)
    tree = _Dendrogram(emb)
    k = min(speakers or estimate_speakers(emb, spans, max_speakers, tree), len(emb))
    labels = tree.cut(k)
    order = {old: new for new, old in enumerate(dict.fromkeys(labels.tolist()))}
    return np.array([order[x] for x in labels])


def segments_from(windows: Windows, labels: np.ndarray) -> list[Segment]:
    """Merge consecutive stretches with one label into segments."""
    out: list[Segment] = []
    for (s, e), lab in zip(windows.spans.tolist(), labels.tolist()):
        if out and out[-1].speaker == lab and s - out[-1].e <= 1:
            out[-1] = Segment(out[-1].s, e, lab)
        else:
            out.append(Segment(s, e, lab))
    return out


def diarize(samples: np.ndarray, speakers: int | None = None, max_speakers: int = DEFAULT_MAX_SPEAKERS,
            weights: str | None = None, window_s: float = WINDOW_S, hop_s: float = HOP_S) -> list[Segment]:
    """Who spoke when in 16 kHz mono audio: segments labelled 0..k-1 by first appearance."""
    regions = speech_regions(samples)
    if not regions:
        return []
    mel = mel_spectrogram(_normalised(samples, regions))
    windows = plan_windows(regions, window_s, hop_s)
    emb = embed_windows(mel, windows, weights)
    labels = cluster(emb, windows.spans, speakers, max_speakers)
    return segments_from(windows, labels)


def speaker_of(s: int, e: int, segments: list[Segment], starts: list[int]) -> int:
    """The speaker whose segments overlap [s, e] most; the nearest segment's when none overlaps."""
    i = max(0, bisect.bisect_right(starts, s) - 1)
    overlap: dict[int, int] = {}
    j = i
    while j < len(segments) and segments[j].s < max(e, s + 1):
        seg = segments[j]
        amount = min(e, seg.e) - max(s, seg.s)
        if amount > 0:
            overlap[seg.speaker] = overlap.get(seg.speaker, 0) + amount
        j += 1
    if overlap:
        return max(overlap, key=lambda k: (overlap[k], -k))
    candidates = segments[max(0, i - 1): i + 2]
    mid = (s + e) / 2
    return min(candidates, key=lambda seg: min(abs(mid - seg.s), abs(mid - seg.e))).speaker


# --- the stage -------------------------------------------------------------------------------------------

def applies(conv: Conversation, options: DiarizationOptions) -> bool:
    """Diarize only one channel whose speaker was not named by the configuration, unless switched off."""
    return (options.enabled and len(conv.channels) == 1 and not conv.channels[0].named
            and options.speakers != 1)


def speaker_names(count: int, given: tuple[str, ...], default: str) -> list[str]:
    """Configured names in order of first appearance, then `Speaker N`; a single speaker keeps `default`."""
    if count == 1:
        return [given[0] if given else default]
    return [given[i] if i < len(given) else f"Speaker {i + 1}" for i in range(count)]


def prepare(options: DiarizationOptions) -> None:
    """Load what `run` will need: the speaker encoder."""
    load_voice_encoder(options.encoder)


def run(conv: Conversation, options: DiarizationOptions) -> None:
    """Give every recognised word of a multi-speaker mono recording its speaker (see `applies`)."""
    if not conv.recognized:
        return
    channel = conv.channels[0]
    segments = diarize(channel.samples, options.speakers, options.max_speakers, options.encoder)
    if not segments:
        return
    starts = [seg.s for seg in segments]
    labels = [speaker_of(w.s, w.e, segments, starts) for w in conv.recognized]
    # renumber by first appearance in the words, so Speaker 1 is the first to speak
    order = {old: new for new, old in enumerate(dict.fromkeys(labels))}
    names = speaker_names(len(order), options.speaker_names, channel.speaker_name)
    for w, label in zip(conv.recognized, labels):
        w.speaker = names[order[label]]
    conv.diarized_speakers = names
