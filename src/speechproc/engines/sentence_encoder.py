"""Sentence embeddings: the rows `encode` returns are normalised, one per text.

A sentence-transformers model made of a BERT encoder, mean pooling and normalisation (the bundled
all-MiniLM-L6-v2 is one) is run here directly: its `tokenizer.json` through `tokenizers`, its
`model.safetensors` through torch. Importing sentence-transformers, and transformers with it, costs
several seconds of CPU in every process that needs a sentence encoder; a model of this one shape needs
neither, and gives the same embeddings (a test compares them). Any other model folder or name goes
through sentence-transformers.
"""
from __future__ import annotations

import json
import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

import numpy as np

from speechproc.concurrency import ordered

TRANSFORMER = "sentence_transformers.models.Transformer"
POOLING = "sentence_transformers.models.Pooling"
NORMALIZE = "sentence_transformers.models.Normalize"


class SentenceEncoder(Protocol):
    def encode(self, texts: Sequence[str], batch_size: int = 64) -> np.ndarray:
        """One normalised float32 row per text."""


def _json(path: Path) -> dict | list | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def fits(folder: Path) -> bool:
    """Whether the folder holds a model `BertSentenceEncoder` runs exactly: a BERT with absolute positions and
    GELU, mean pooling of the last layer, normalised; safetensors weights and a tokenizer.json."""
    modules = _json(folder / "modules.json")
    config = _json(folder / "config.json")
    if not isinstance(modules, list) or not isinstance(config, dict):
        return False
    if [m.get("type") for m in modules if isinstance(m, dict)] != [TRANSFORMER, POOLING, NORMALIZE] or modules[0].get("path"):
        return False
    pooling = _json(folder / str(modules[1].get("path", "")) / "config.json")
    modes = {k: v for k, v in pooling.items() if k.startswith("pooling_mode_")} if isinstance(pooling, dict) else {}
    return (modes.get("pooling_mode_mean_tokens") is True and not any(v for k, v in modes.items()
                                                                       if k != "pooling_mode_mean_tokens")
            and config.get("model_type") == "bert" and config.get("hidden_act") == "gelu"
            and config.get("position_embedding_type", "absolute") == "absolute"
            and (folder / "model.safetensors").is_file() and (folder / "tokenizer.json").is_file())


class BertSentenceEncoder:
    """A BERT sentence-transformers model (see `fits`) run with torch; what sentence-transformers computes."""

    def __init__(self, folder: Path) -> None:
        import torch
        from safetensors.torch import load_file
        from tokenizers import Tokenizer

        config = _json(folder / "config.json")
        settings = _json(folder / "sentence_bert_config.json") or {}
        assert isinstance(config, dict) and isinstance(settings, dict)
        self._torch = torch
        self.heads = int(config["num_attention_heads"])
        self.layers = int(config["num_hidden_layers"])
        self.eps = float(config.get("layer_norm_eps", 1e-12))
        self.lowercase = bool(settings.get("do_lower_case", False))
        self.weights = {name: tensor.float() for name, tensor in load_file(str(folder / "model.safetensors")).items()}
        self.weights = {name.removeprefix("bert."): tensor for name, tensor in self.weights.items()}
        limit = min(int(settings.get("max_seq_length") or config["max_position_embeddings"]),
                    int(config["max_position_embeddings"]))
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.enable_truncation(max_length=limit)
        pad_id = int(config.get("pad_token_id") or 0)
        self.tokenizer.enable_padding(pad_id=pad_id, pad_token=self.tokenizer.id_to_token(pad_id) or "[PAD]")

    def encode(self, texts: Sequence[str], batch_size: int = 64) -> np.ndarray:
        width = self.weights["embeddings.word_embeddings.weight"].shape[1]
        rows = np.zeros((len(texts), width), dtype=np.float32)
        cleaned = [str(t).strip().lower() if self.lowercase else str(t).strip() for t in texts]
        order = sorted(range(len(cleaned)), key=lambda i: -len(cleaned[i]))  # like lengths share a batch
        batches = [order[first:first + batch_size] for first in range(0, len(order), batch_size)]

        def embedded(picked: list[int]) -> np.ndarray:
            with self._torch.inference_mode():  # a thread's own mode
                return self._embed([cleaned[i] for i in picked]).numpy()

        # the batches side by side, one per core: each one's numbers are the same on any thread
        for picked, vectors in zip(batches, ordered(embedded, batches, os.cpu_count() or 1, "speechproc-encoder")):
            rows[picked] = vectors
        return rows

    def _embed(self, texts: list[str]):  # -> torch.Tensor, one normalised row per text
        torch, w = self._torch, self.weights
        encodings = self.tokenizer.encode_batch(texts)
        ids = torch.tensor([e.ids for e in encodings], dtype=torch.long)
        types = torch.tensor([e.type_ids for e in encodings], dtype=torch.long)
        mask = torch.tensor([e.attention_mask for e in encodings], dtype=torch.float32)
        positions = torch.arange(ids.shape[1])
        x = (w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][positions]
             + w["embeddings.token_type_embeddings.weight"][types])
        x = self._norm(x, "embeddings.LayerNorm")
        blocked = (1.0 - mask)[:, None, None, :] * torch.finfo(torch.float32).min
        for k in range(self.layers):
            x = self._layer(x, blocked, f"encoder.layer.{k}.")
        summed = (x * mask[:, :, None]).sum(dim=1)
        pooled = summed / mask.sum(dim=1, keepdim=True).clamp(min=1e-9)
        return torch.nn.functional.normalize(pooled, p=2, dim=1)

    def _linear(self, x, name: str):
        return self._torch.nn.functional.linear(x, self.weights[name + ".weight"], self.weights[name + ".bias"])

    def _norm(self, x, name: str):
        return self._torch.nn.functional.layer_norm(x, x.shape[-1:], self.weights[name + ".weight"],
                                                     self.weights[name + ".bias"], self.eps)

    def _layer(self, x, blocked, prefix: str):
        torch = self._torch
        batch, length, width = x.shape
        head = width // self.heads

        def split(t):
            return t.view(batch, length, self.heads, head).transpose(1, 2)

        q, k, v = (split(self._linear(x, f"{prefix}attention.self.{part}")) for part in ("query", "key", "value"))
        scores = q @ k.transpose(-1, -2) / math.sqrt(head) + blocked
        context = (torch.softmax(scores, dim=-1) @ v).transpose(1, 2).reshape(batch, length, width)
        x = self._norm(self._linear(context, f"{prefix}attention.output.dense") + x, f"{prefix}attention.output.LayerNorm")
        inner = torch.nn.functional.gelu(self._linear(x, f"{prefix}intermediate.dense"))
        return self._norm(self._linear(inner, f"{prefix}output.dense") + x, f"{prefix}output.LayerNorm")


class SentenceTransformersEncoder:
    """Any other model, through sentence-transformers."""

    def __init__(self, model) -> None:  # model: sentence_transformers.SentenceTransformer
        self.model = model

    def encode(self, texts: Sequence[str], batch_size: int = 64) -> np.ndarray:
        return self.model.encode(list(texts), batch_size=batch_size, normalize_embeddings=True,
                                 show_progress_bar=False, convert_to_numpy=True)
