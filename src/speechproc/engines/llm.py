"""Language models for call insights: a GGUF file run in this process (llama.cpp through xllamacpp), or an
OpenAI-compatible server (llama.cpp's server, Ollama, vLLM) for bigger models on other machines.

Both answer `ask(messages, schema, max_tokens)` with a JSON object constrained to `schema`, decoded greedily
(temperature 0, a fixed seed), so that the same call gives the same answers run after run; and
`yes_probability(messages)`, how likely the model's next word after the messages is "yes" rather than "no"
(read from its token probabilities: a yes/no question answered by sampling one word leans to yes).

The local model serves requests inside this process. llama.cpp's server always listens: here it listens on a
Unix socket in a private folder (0700) and wants a random key, so that no other user or web page can reach it;
its slot keeps the evaluated prompt between requests (`cache_prompt`), so questions that share a transcript
evaluate it once. Its thread count and batch sizes are fixed by the settings, never by the machine's load or
the number of workers: llama.cpp's sums depend on how the work is split.
"""
from __future__ import annotations

import http.client
import json
import math
import os
import re
import secrets
import shutil
import ssl
import tempfile
import threading
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, TypedDict
from urllib.parse import urlsplit

from speechproc.errors import MODEL_UNAVAILABLE, SpeechprocError
from speechproc.results import JsonObject, ModelDescription

BATCH = 512  # prompt tokens evaluated at once (n_batch = n_ubatch): fixed, so the numbers do not move
SEED = 0
SERVER_TIMEOUT_S = 300  # one answer of a remote server
API_KEY_VARIABLE = "SPEECHPROC_INSIGHTS_API_KEY"  # the remote server's key: from the environment, never stored
LOOPBACK = ("localhost", "127.0.0.1", "::1")


class ModelError(SpeechprocError):
    """The language model cannot be loaded or reached, or gave no answer (90001)."""

    def __init__(self, message: str) -> None:
        super().__init__(MODEL_UNAVAILABLE, message, 500)


class ChatMessage(TypedDict):
    """One message of a chat completion request."""

    role: str  # system, user or assistant
    content: str


class LanguageModel(Protocol):
    """What the insights stage needs of a model."""

    context: int  # tokens one request may hold (prompt and answer)

    def describe(self) -> ModelDescription: ...
    def ask(self, messages: list[ChatMessage], schema: JsonObject, max_tokens: int,
            fresh: bool = False) -> JsonObject: ...
    def yes_probability(self, messages: list[ChatMessage], fresh: bool = False) -> float | None: ...


class NoAnswer(ModelError):
    """The model answered, but not with a JSON object of the schema (cut off at its token limit, say)."""


def _content(answer: JsonObject) -> JsonObject:
    """The JSON object of a chat completion's first choice; NoAnswer when there is none."""
    try:
        text = answer["choices"][0]["message"]["content"]
        found = json.loads(text)
    except (KeyError, IndexError, TypeError, ValueError) as exc:
        raise NoAnswer(f"the language model gave no JSON answer ({type(exc).__name__})") from None
    if not isinstance(found, dict):
        raise NoAnswer("the language model's answer is not a JSON object")
    return found


TOP_TOKENS = 20  # the most likely next tokens asked for, among which "yes" and "no" are looked for


def _yes_share(answer: JsonObject) -> float | None:
    """P(yes) / (P(yes) + P(no)) over the first answered token's most likely tokens (" Yes", "yes", " NO" all
    count); None when neither is among them. A server that gives no probabilities is read from its text."""
    try:
        choice = answer["choices"][0]
        if not isinstance(choice, dict):
            raise TypeError
    except (KeyError, IndexError, TypeError):
        raise NoAnswer("the language model gave no answer") from None
    logprobs = choice.get("logprobs")
    content = logprobs.get("content") if isinstance(logprobs, dict) else None
    first = content[0] if isinstance(content, list) and content and isinstance(content[0], dict) else {}
    tokens = first.get("top_logprobs")
    if not isinstance(tokens, list) or not tokens:
        message = choice.get("message")
        text = message.get("content") if isinstance(message, dict) else None
        said = [w for w in re.findall(r"[a-z]+", str(text or "").lower()) if w in ("yes", "no")]
        return None if not said else 1.0 if said[-1] == "yes" else 0.0
    mass = {"yes": 0.0, "no": 0.0}
    for token in tokens:
        if not isinstance(token, dict):
            continue
        word = str(token.get("token", "")).strip().lower()
        logprob = token.get("logprob")
        if word in mass and isinstance(logprob, (int, float)) and not isinstance(logprob, bool):
            mass[word] += math.exp(min(0.0, float(logprob)))  # a log-probability is at most 0
    total = mass["yes"] + mass["no"]
    return mass["yes"] / total if total > 0 else None


def is_server(model: str) -> bool:
    """Whether `insightsModel` names a server (an http or https URL, in any case) rather than a model."""
    return model.lower().startswith(("http://", "https://"))


def check_url(url: str) -> None:
    """ValueError unless `url` is a server's base URL speechproc may send a transcript to: http(s), a host, a
    valid port, no user information, query or fragment (they would be dropped, or kept in the catalog)."""
    parts = urlsplit(url)
    if parts.scheme.lower() not in ("http", "https"):
        raise ValueError("a server URL starts with http:// or https://")
    try:
        parts.port  # noqa: B018 (raises for a port that is not a number from 0 to 65535)
    except ValueError:
        raise ValueError("the server URL's port is not a number from 1 to 65535") from None
    if not parts.hostname:
        raise ValueError("the server URL names no host")
    if parts.username is not None or parts.password is not None:
        raise ValueError(f"put no user or password in the server URL; give the key in ${API_KEY_VARIABLE}")
    if parts.query or parts.fragment:
        raise ValueError(f"the server URL must not have a query or fragment; give a key in ${API_KEY_VARIABLE}")
    if os.environ.get(API_KEY_VARIABLE) and parts.scheme.lower() == "http" and parts.hostname not in LOOPBACK:
        raise ValueError(f"${API_KEY_VARIABLE} would go in clear text to {parts.hostname}: use https")


def _one_word(messages: list[ChatMessage]) -> list[ChatMessage]:
    """The messages with the answer begun ("Answer:"), so that the next token is the answer's word."""
    return [*messages, {"role": "assistant", "content": "Answer:"}]


@dataclass
class LocalModel:
    """A GGUF model run in this process by llama.cpp (xllamacpp), one request at a time."""

    path: Path
    name: str
    threads: int
    context: int
    sha256: str | None = None  # recorded in each item's `insights.model` (the bundled model's)

    def __post_init__(self) -> None:
        try:
            import xllamacpp
        except ImportError:
            raise ModelError("the insights runtime is not installed: pip install 'speechproc[insights]' (xllamacpp)") \
                from None
        self._folder = Path(tempfile.mkdtemp(prefix="speechproc-llm-"))  # 0700: the socket's folder
        weakref.finalize(self, shutil.rmtree, self._folder, True)  # removed when the model goes, or at exit
        self._lock = threading.Lock()
        params = xllamacpp.CommonParams()
        params.model.path = str(self.path)
        params.n_ctx, params.n_batch, params.n_ubatch, params.n_parallel = self.context, BATCH, BATCH, 1
        params.cpuparams.n_threads = params.cpuparams_batch.n_threads = self.threads
        params.sampling.temp, params.sampling.top_k, params.sampling.seed = 0.0, 1, SEED
        params.hostnames = [str(self._folder / "llm.sock")]
        params.api_keys = [secrets.token_hex(16)]
        params.cors_origins = ""
        params.n_threads_http = 1
        params.verbosity = 0
        params.warmup = False
        # The weights are used as the file holds them, mapped, not repacked into a copy for llama.cpp's
        # interleaved kernels: the copy costs about 600 MB of private memory for the bundled model, its repacking
        # a quarter of the load, and on the machine measured the plain kernels read a prompt faster (docs/benchmarks.md).
        params.no_extra_bufts = True
        # No prompt cache in memory beyond the slot's own: restored from an earlier request, a prompt's last
        # tokens are evaluated in other batches, so a call's answers would depend on the calls read before it.
        params.cache_ram_mib = 0
        try:
            self._server = xllamacpp.Server(params)
        except Exception as exc:  # llama.cpp reports a bad file as a RuntimeError of its own
            shutil.rmtree(self._folder, ignore_errors=True)
            raise ModelError(f"the language model {self.path} could not be loaded ({type(exc).__name__}: {exc})") \
                from None

    def describe(self) -> ModelDescription:
        found: ModelDescription = {"name": self.name, "runtime": "llama.cpp", "context": self.context}
        return {**found, "sha256": self.sha256} if self.sha256 else found

    def ask(self, messages: list[ChatMessage], schema: JsonObject, max_tokens: int,
            fresh: bool = False) -> JsonObject:
        """The model's answer; `fresh`: evaluate the whole prompt anew (a call's first question), so that what
        the call gives never depends on the call read before it (the batches a prompt is evaluated in change
        llama.cpp's sums)."""
        request: JsonObject = {"messages": messages, "json_schema": schema, "max_tokens": max_tokens, "temperature": 0.0,
                   "top_k": 1, "seed": SEED, "cache_prompt": not fresh, "n_predict": max_tokens}
        return _content(self._complete(request))

    def yes_probability(self, messages: list[ChatMessage], fresh: bool = False) -> float | None:
        """How likely the answer to the messages' yes/no question is yes (None: the model says neither)."""
        request: JsonObject = {"messages": _one_word(messages), "max_tokens": 1, "n_predict": 1, "temperature": 0.0,
                   "seed": SEED, "cache_prompt": not fresh, "logprobs": True, "top_logprobs": TOP_TOKENS}
        return _yes_share(self._complete(request))

    def _complete(self, request: JsonObject) -> JsonObject:
        with self._lock:
            try:
                answer = self._server.handle_chat_completions(request)
            except Exception as exc:
                raise ModelError(f"the language model failed ({type(exc).__name__}: {exc})") from None
        if not isinstance(answer, dict):
            raise ModelError("the language model gave no answer")
        if "error" in answer:
            raise ModelError(f"the language model refused the request: {answer['error']}")
        return answer

    def close(self) -> None:
        shutil.rmtree(self._folder, ignore_errors=True)


@dataclass
class RemoteModel:
    """An OpenAI-compatible chat-completions server at `url` (its base, such as http://host:8080/v1)."""

    url: str
    model: str
    context: int

    def describe(self) -> ModelDescription:
        parts = urlsplit(self.url)
        port = f":{parts.port}" if parts.port else ""
        public = f"{parts.scheme}://{parts.hostname}{port}{parts.path}"
        return {"name": self.model, "runtime": "server", "url": public.rstrip("/"), "context": self.context}

    def ask(self, messages: list[ChatMessage], schema: JsonObject, max_tokens: int,
            fresh: bool = False) -> JsonObject:
        body: JsonObject = {"model": self.model, "messages": messages, "max_tokens": max_tokens, "temperature": 0, "seed": SEED,
                "cache_prompt": not fresh,  # llama.cpp's server: a call's first question evaluated anew
                "response_format": {"type": "json_schema", "json_schema": {"name": "answer", "schema": schema,
                                                                            "strict": True}}}
        return _content(self._post("/chat/completions", body))

    def yes_probability(self, messages: list[ChatMessage], fresh: bool = False) -> float | None:
        """As LocalModel's; a server that gives no token probabilities is read from the word it answers."""
        body: JsonObject = {"model": self.model, "messages": _one_word(messages), "max_tokens": 1, "temperature": 0,
                "seed": SEED, "logprobs": True, "top_logprobs": TOP_TOKENS, "cache_prompt": not fresh}
        return _yes_share(self._post("/chat/completions", body))

    def check(self, timeout: float) -> None:
        """ModelError unless the server answers `GET models` (as OpenAI-compatible servers do) within `timeout`."""
        self._request("GET", "/models", None, timeout)

    def _post(self, path: str, body: JsonObject) -> JsonObject:
        return self._request("POST", path, body, SERVER_TIMEOUT_S)

    def _request(self, method: str, path: str, body: JsonObject | None, timeout: float) -> JsonObject:
        parts = urlsplit(self.url)
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        key = os.environ.get(API_KEY_VARIABLE)
        if key and (parts.scheme.lower() == "https" or parts.hostname in LOOPBACK):
            headers["Authorization"] = f"Bearer {key}"  # never in clear text over a network
        host, port = parts.hostname or "", parts.port
        connection = (http.client.HTTPSConnection(host, port, timeout=timeout, context=ssl.create_default_context())
                      if parts.scheme.lower() == "https" else http.client.HTTPConnection(host, port, timeout=timeout))
        shown = self.describe()["url"]
        try:
            data_out = json.dumps(body).encode() if body is not None else None
            connection.request(method, parts.path.rstrip("/") + path, data_out, headers)
            answer = connection.getresponse()
            data = answer.read(16 * 2**20)
        except (OSError, http.client.HTTPException) as exc:
            raise ModelError(f"the insights server {shown} cannot be reached ({type(exc).__name__}: {exc})") from None
        finally:
            connection.close()
        if answer.status != 200:
            raise ModelError(f"the insights server {shown} answered {answer.status} {answer.reason}")
        try:
            found = json.loads(data)
        except ValueError:
            raise ModelError(f"the insights server {shown} answered with something that is not JSON") from None
        if not isinstance(found, dict):
            raise ModelError(f"the insights server {shown} answered with something that is not a completion")
        return found
