"""Custom vocabularies: stored lists and their CLI, resolution in a configuration, the recogniser's hint,
spoken forms and the correction after recognition (on known transcripts: no test depends on the model's words)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import invoke
from speechproc import errors
from speechproc.config import options as config_options
from speechproc.config import v3 as config
from speechproc.config.resolving import resolve
from speechproc.conversation import Conversation, RecognizedWord
from speechproc.stages.options import VocabularyOptions, VocabularyTerm
from speechproc.stages.recognition import soundalike, vocabulary
from speechproc.store.database.catalog import Catalog
from speechproc.store.registered import vocabularies
from speechproc.store.registered.definitions import check_name

COMMON = frozenset("i would like to cancel my plan and get a refund please the printer in office stopped working "
                   "again ordered router last week it umbrella we moved all our files storage".split())


def heard(text: str, probability: float = 0.9, low: dict[str, float] | None = None) -> list[RecognizedWord]:
    """Words as a recogniser gives them, one every 500 ms; `low` gives some words their own probability."""
    return [RecognizedWord(w, i * 500, i * 500 + 400, (low or {}).get(w, probability), "Agent")
            for i, w in enumerate(text.split())]


def texts(words: list[RecognizedWord]) -> str:
    return " ".join(w.text for w in words)


def terms(*names: str, **sounds: list[str]) -> VocabularyOptions:
    return VocabularyOptions(terms=tuple(VocabularyTerm(n, tuple(sounds.get(n, ()))) for n in names))


def stored_error(body, name: str = "products") -> errors.ConfigurationError:
    with pytest.raises(errors.ConfigurationError) as caught:
        vocabularies.stored(name, body, check_name)
    return caught.value


def test_stored_vocabulary_rules():
    ok = vocabularies.stored("products", {"vocabularyName": "products", "terms": [{"term": " Acme  Cloud ", "weight": 2}]},
                             check_name)
    assert ok == {"vocabularyName": "products", "terms": [{"term": "Acme Cloud", "soundsLike": [], "weight": 2}]}
    assert stored_error({"vocabularyName": "other", "terms": [{"term": "a"}]}).code == errors.VOCABULARY_NAME_MISMATCH
    assert stored_error({}).code == errors.VOCABULARY_BODY_EMPTY
    assert stored_error({"terms": []}).code == errors.VOCABULARY_NO_TERMS
    assert stored_error({"terms": [{"term": f"t{i}"} for i in range(1001)]}).code == errors.VOCABULARY_TOO_MANY_TERMS
    assert stored_error({"terms": [{"term": "Acme"}, {"term": "ACME"}]}).code == errors.VOCABULARY_DUPLICATE_TERMS
    assert stored_error({"terms": [{"term": "x" * 65}]}).code == errors.VOCABULARY_BAD_TERM
    assert stored_error({"terms": [{"term": "  "}]}).code == errors.VOCABULARY_EMPTY_TERM
    for weight in (6, 2.5, -1, True, "3"):
        assert stored_error({"terms": [{"term": "a", "weight": weight}]}).code == errors.VOCABULARY_BAD_WEIGHT
    assert stored_error({"terms": [{"term": "a", "soundsLike": ["b"] * 101}]}).code == errors.VOCABULARY_BAD_TERM
    assert stored_error({"terms": [{"term": "a", "spelling": "b"}]}).code == errors.UNKNOWN_PROPERTY
    assert stored_error({"terms": [{"term": "a"}]}, name="bad name").code == errors.INVALID_VALUE


def test_vocabularies_commands_end_to_end(tmp_path: Path):
    good = tmp_path / "v.json"
    good.write_text(json.dumps({"vocabularyName": "cli-products", "terms": [
        {"term": "Zentrik", "soundsLike": ["zen trick"], "weight": 4}, {"term": "Quorvane"}]}))
    code, out = invoke("vocabularies", "put", "cli-products", str(good))
    assert code == 0 and out["terms"][0] == {"term": "Zentrik", "soundsLike": ["zen trick"], "weight": 4}
    assert out["terms"][1]["weight"] == 0 and out["dateCreated"]
    code, out = invoke("vocabularies", "list")
    assert code == 0 and "cli-products" in [v["vocabularyName"] for v in out["vocabularies"]]
    code, out = invoke("vocabularies", "get", "cli-products")
    assert code == 0 and [t["term"] for t in out["terms"]] == ["Zentrik", "Quorvane"]
    hostile = {
        "many.json": ({"terms": [{"term": f"term{i}"} for i in range(1001)]}, errors.VOCABULARY_TOO_MANY_TERMS),
        "dup.json": ({"terms": [{"term": "Acme"}, {"term": "acme"}]}, errors.VOCABULARY_DUPLICATE_TERMS),
        "long.json": ({"terms": [{"term": "x" * 65}]}, errors.VOCABULARY_BAD_TERM),
        "w6.json": ({"terms": [{"term": "a", "weight": 6}]}, errors.VOCABULARY_BAD_WEIGHT),
        "w25.json": ({"terms": [{"term": "a", "weight": 2.5}]}, errors.VOCABULARY_BAD_WEIGHT),
    }
    for name, (body, code_expected) in hostile.items():
        (tmp_path / name).write_text(json.dumps(body))
        code, out = invoke("vocabularies", "put", "cli-products", str(tmp_path / name))
        assert code == 2 and out["warnings"][0]["code"] == code_expected, (name, out)
    (tmp_path / "binary.json").write_bytes(bytes(range(256)) * 64)
    code, out = invoke("vocabularies", "put", "cli-products", str(tmp_path / "binary.json"))
    assert code == 2 and out["warnings"][0]["code"] == errors.CONFIG_NOT_PARSEABLE
    (tmp_path / "huge.json").write_text('{"terms": [' + ",".join(['{"term": "abc"}'] * 2_000_000) + "]}")
    code, out = invoke("vocabularies", "put", "cli-products", str(tmp_path / "huge.json"))
    assert code == 2 and out["warnings"][0]["code"] in (errors.CONFIG_NOT_PARSEABLE, errors.VOCABULARY_TOO_MANY_TERMS)
    code, out = invoke("vocabularies", "put", "bad name", str(good))
    assert code == 2 and out["warnings"][0]["code"] == errors.INVALID_VALUE
    code, out = invoke("vocabularies", "get", "cli-products")  # nothing refused replaced what was stored
    assert [t["term"] for t in out["terms"]] == ["Zentrik", "Quorvane"]
    assert invoke("vocabularies", "delete", "cli-products")[0] == 0
    code, out = invoke("vocabularies", "get", "cli-products")
    assert code == 1 and out["status"] == 404


def test_named_vocabularies_resolve_before_any_audio(tmp_path: Path):
    catalog = Catalog(tmp_path / "catalog.db")
    catalog.definitions.put("vocabulary", "names", {"vocabularyName": "names", "terms": [
        {"term": "Okonkwo", "soundsLike": [], "weight": 5}]}, "2024-01-01T00:00:00.000Z")
    catalog.definitions.put("vocabulary", "empty", {"vocabularyName": "empty", "terms": []}, "2024-01-01T00:00:00.000Z")
    settings = config.validate({"vocabularies": [{"vocabularyName": "names"}, {"terms": [{"term": "Zentrik"}]}]})
    resolved = resolve(settings, catalog)
    assert [t["term"] for t in resolved.vocabulary_terms] == ["Okonkwo", "Zentrik"]
    assert config_options.build(resolved).vocabulary.terms[0] == VocabularyTerm("Okonkwo", (), 5)

    def code(raw) -> int:
        with pytest.raises(errors.ConfigurationError) as caught:
            resolve(config.validate(raw), catalog)
        return caught.value.code

    assert code({"vocabularies": [{"vocabularyName": "missing"}]}) == errors.VOCABULARY_NOT_FOUND
    assert code({"vocabularies": [{"vocabularyName": "empty"}]}) == errors.VOCABULARY_EMPTY
    assert code({"vocabularies": [{"vocabularyName": "names"}, {"terms": [{"term": "okonkwo"}]}]}) == \
        errors.VOCABULARY_DUPLICATE_TERMS
    with pytest.raises(errors.ConfigurationError) as caught:
        config.validate({"vocabularies": [{"vocabularyName": "names", "terms": [{"term": "a"}]}]})
    assert caught.value.code == errors.VOCABULARY_NAME_AND_TERMS
    with pytest.raises(errors.ConfigurationError) as caught:  # across inline lists, at validation already
        config.validate({"vocabularies": [{"terms": [{"term": "Acme"}]}, {"terms": [{"term": "ACME"}]}]})
    assert caught.value.code == errors.VOCABULARY_DUPLICATE_TERMS
    with pytest.raises(errors.ConfigurationError) as caught:
        config.validate({"vocabularies": [{"terms": [{"term": "a", "weight": 2.5}]}]})
    assert caught.value.code == errors.VOCABULARY_BAD_WEIGHT


def test_sounds_like_replaces_a_run_with_the_term():
    options = terms("VoiceBase", "Acme Cloud", VoiceBase=["voice base", "voicebays"], **{"Acme Cloud": ["acne"]})
    words = heard("I called Voice, base. yesterday about acne", low={"base.": 0.4})
    out, count = vocabulary.sounds_like(words, options)
    assert texts(out) == "I called VoiceBase. yesterday about acne"  # soundsLike of a multi-word term: ignored
    assert count == 1
    replaced = out[2]
    assert (replaced.s, replaced.e, replaced.probability) == (words[2].s, words[3].e, 0.4)


def test_hint_orders_by_weight_and_warns_about_what_did_not_fit():
    options = VocabularyOptions(terms=(VocabularyTerm("alpha"), VocabularyTerm("beta", weight=5),
                                       VocabularyTerm("gamma", weight=2), VocabularyTerm("delta", weight=5)),
                                scripts=("a long script",))
    assert vocabulary.hint_parts(options) == ["beta", "delta", "gamma", "alpha", "a long script"]
    words = lambda text: len(text.split())  # noqa: E731 - one token a word
    hint, left = vocabulary.fit_hint(vocabulary.hint_parts(options), words, 3)
    assert hint == "beta delta gamma" and left == ["alpha", "a long script"]
    code, message = vocabulary.hint_warning(left, options, 3)
    assert code == errors.VOCABULARY_TOO_MANY_TERMS and "1 of 4 vocabulary terms (alpha)" in message
    assert "1 of 1 vocabulary scripts" in message
    assert vocabulary.fit_hint(["x"] * 5, words, 10) == ("x x x x x", [])


@pytest.mark.slow
def test_hint_is_measured_with_the_recognisers_tokenizer():
    from speechproc.engines.models import load_whisper

    model = load_whisper("tiny.en")
    assert vocabulary.prompt_budget(model) == 223
    options = VocabularyOptions(terms=tuple(VocabularyTerm(f"Term{i:04d}") for i in range(1000)))
    conv = Conversation("00000000-0000-0000-0000-000000000000", length_ms=0)
    recognition = vocabulary.with_hint(conv, config_options.build(config.validate({})).recognition, options,
                                       lambda: model)
    kept = recognition.hotwords.split()
    assert 10 < len(kept) < 1000 and kept[0] == "Term0000"
    assert len(model.hf_tokenizer.encode(" " + recognition.hotwords, add_special_tokens=False).ids) <= 223
    [(code, message)] = conv.warnings
    assert code == errors.VOCABULARY_TOO_MANY_TERMS and f"{1000 - len(kept)} of 1000" in message
    assert f"Term{len(kept):04d}" in message and "Term0000" not in message


def test_phonetic_key_merges_what_a_recogniser_confuses():
    assert soundalike.distance(soundalike.phonetic_key("Quorvane"), soundalike.phonetic_key("Corbin")) == 1
    assert soundalike.phonetic_key("Okonkwo") == soundalike.phonetic_key("Akanko")
    assert soundalike.phonetic_key("TriVex") == soundalike.phonetic_key("Trivex")


def distractor_terms() -> list[str]:
    import random

    rng = random.Random(5)
    syllables = ["ka", "lo", "mi", "ra", "ven", "tor", "bel", "dri", "qua", "zen", "vo", "nex", "ti", "mar", "sol"]
    return ["".join(rng.choice(syllables) for _ in range(3)).capitalize() for _ in range(990)]


def test_correction_replaces_a_near_miss_among_1000_terms():
    index = soundalike.TermIndex(["Kasparian", "Nimbrella", "Okonkwo", *distractor_terms()])
    words = heard("Mister Castarian will sign", low={"Castarian": 0.45})
    out, count = vocabulary.correct(words, index, COMMON)
    assert texts(out) == "Mister Kasparian will sign" and count == 1
    assert out[1].probability == 0.45 and (out[1].s, out[1].e) == (words[1].s, words[1].e)
    words = heard("files to the umbrella, storage", low={"umbrella,": 0.15})
    assert texts(vocabulary.correct(words, index, COMMON)[0]) == "files to the Nimbrella, storage"
    words = heard("files to the umbrella, storage", low={"umbrella,": 0.4})  # common, and not that unsure
    assert texts(vocabulary.correct(words, index, COMMON)[0]) == "files to the umbrella, storage"
    words = heard("ask doctor a kanko to call", low={"a": 0.3, "kanko": 0.3})
    assert texts(vocabulary.correct(words, index, COMMON)[0]) == "ask doctor Okonkwo to call"


def test_correction_leaves_common_words_and_unrelated_calls_alone():
    index = soundalike.TermIndex(["Nimbrella", "Kasparian", *distractor_terms()])
    words = heard("we moved all our files to the umbrella storage")  # a common word heard with confidence
    assert vocabulary.correct(words, index, COMMON) == (words, 0)
    call = ("i would like to cancel my plan and get a refund please the printer in the office stopped working "
            "again i ordered the router last week")
    for probability in (0.95, 0.7, 0.3):
        words = heard(call, probability)
        assert vocabulary.correct(words, index, COMMON) == (words, 0)
    short = soundalike.TermIndex(["Acme"])  # under MIN_LETTERS: never matched by sound
    assert vocabulary.correct(heard("acne", 0.1), short, COMMON)[1] == 0


class WordTokens:
    """A recogniser's stand-in for the hint: one token a word, a prompt of `budget` tokens."""

    def __init__(self, budget: int) -> None:
        self.max_length = 2 * (budget + 1)
        self.hf_tokenizer = self

    def encode(self, text: str, add_special_tokens: bool = False):
        return type("Encoded", (), {"ids": text.split()})()


def test_spotting_finds_the_terms_a_confident_common_word_may_be():
    index = soundalike.TermIndex(["Nimbrella", "Kasparian", *distractor_terms()])
    words = heard("we moved all our files to the umbrella storage")
    found = soundalike.spotted([w.text for w in words], vocabulary._joined(words), index)
    assert "Nimbrella" in found[:5]  # heard as a word the correction must leave alone, still worth a hint
    assert soundalike.spotted([w.text for w in heard("thank you have a nice day")],
                              vocabulary._joined(heard("thank you have a nice day")), index) == []


def test_a_second_pass_listens_for_the_spotted_terms_that_did_not_fit_the_hint():
    options = VocabularyOptions(terms=tuple(VocabularyTerm(t) for t in [*distractor_terms()[:50], "Nimbrella"]))
    recognition = config_options.build(config.validate({})).recognition
    conv = Conversation("00000000-0000-0000-0000-000000000000", length_ms=0)
    conv.recognized = heard("we moved all our files to the umbrella storage")
    again = vocabulary.respotted(conv, recognition, options, lambda: WordTokens(10))
    spotted = soundalike.spotted([w.text for w in conv.recognized], vocabulary._joined(conv.recognized),
                                 vocabulary.index(options))
    assert again is not None and again.hotwords.split()[0] == "Nimbrella"
    assert again.hotwords.split() == spotted[:len(again.hotwords.split())]  # only terms spotted, most alike first
    assert 1 <= len(again.hotwords.split()) <= vocabulary.SPOTTED_HINT
    assert vocabulary.respotted(conv, recognition, options, lambda: WordTokens(100)) is None  # all fitted
    conv.recognized = heard("thank you have a nice day")
    assert vocabulary.respotted(conv, recognition, options, lambda: WordTokens(10)) is None  # nothing spotted


@pytest.mark.slow
def test_vocabulary_stage_in_the_pipeline():
    from text_helpers import run_stage

    conv = Conversation("00000000-0000-0000-0000-000000000000", length_ms=3000)
    conv.recognized = heard("please call Voice base now", low={"base": 0.5})
    raw = {"vocabularies": [{"terms": [{"term": "VoiceBase", "soundsLike": ["voice base"]}]}]}
    assert run_stage("vocabulary", conv, raw)
    assert texts(conv.recognized) == "please call VoiceBase now"
    assert not run_stage("vocabulary", Conversation("00000000-0000-0000-0000-000000000000", length_ms=0), {})


@pytest.mark.parametrize("term", ["Ac\u0000me", "Ac\u0007me", "Ac\u009bme"])
def test_a_term_with_a_control_character_is_refused_stored_or_inline(term):
    assert stored_error({"vocabularyName": "products", "terms": [{"term": term}]}).code != 0
    with pytest.raises(errors.ConfigurationError, match="control character"):
        config.validate({"vocabularies": [{"terms": [{"term": term}]}]})


def test_a_common_word_is_never_replaced_by_a_term_spelled_like_it():
    """Terms that begin as common words do (`Refundo`, `Billings`) leave those words alone, however low their
    confidence: the word was most likely said as heard."""
    index = soundalike.TermIndex(["Refundo", "Numbra", "Pleasy", "Billings", "Nimbrella"])
    common = frozenset("i want a refund for the number please about billing we moved our files to umbrella".split())
    words = heard("i want a refund for the number please about billing", probability=0.1)
    assert vocabulary.correct(words, index, common) == (words, 0)
    words = heard("we moved our files to umbrella", low={"umbrella": 0.1})  # not spelled like the term's start
    assert texts(vocabulary.correct(words, index, common)[0]) == "we moved our files to Nimbrella"


def test_a_term_the_second_pass_invents_gives_way_to_the_first_pass():
    first = heard("cancel my clan and get a refund please")
    second = heard("cancel my Kallen and get a refund Blees")
    second[2].probability, second[7].probability = 0.004, 0.001  # told of Kallen and Blees, barely heard them
    assert texts(vocabulary.kept_from_second_pass(first, second, "Kallen Blees Zentrik")) == \
        "cancel my clan and get a refund please"
    second = heard("the Zentrik router stopped")
    second[1].probability = 0.3  # a term heard with some confidence stays
    assert texts(vocabulary.kept_from_second_pass(heard("the mentoring router stopped"), second, "Zentrik")) == \
        "the Zentrik router stopped"
    second = heard("the Zentrik router stopped")
    second[1].probability = 0.005
    first = [w for i, w in enumerate(heard("the Zentrik router stopped")) if i != 1]  # nothing heard at 500-900 ms
    assert texts(vocabulary.kept_from_second_pass(first, second, "Zentrik")) == \
        "the router stopped"  # an invented word with nothing under it is left out
    caller = [RecognizedWord("hi", 500, 800, 0.9, "Caller")]  # another channel's word at that moment stays its own
    assert texts(vocabulary.kept_from_second_pass(first + caller, second + caller, "Zentrik")) == \
        "the router stopped hi"
