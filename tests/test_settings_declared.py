"""A local setting is declared once, as a field of an options dataclass: that declaration alone gives the
configuration's validation, the default and the options a stage receives."""
from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from speechproc import errors
from speechproc.config import v3 as config
from speechproc.config.options import build, callback_options, download_options, encryption_options
from speechproc.config.settings import DEFAULTS, LOCAL_SETTINGS
from speechproc.delivery.options import CallbackOptions
from speechproc.download import DownloadOptions
from speechproc.schema import SETTING, Arr, Bool, Num, Setting, Str, declared
from speechproc.stages.analytics import taxonomy
from speechproc.stages.options import DiarizationOptions, RecognitionOptions


def a_valid_value(setting: Setting, folder: Path):
    """A value the setting accepts that differs from its default (`folder`: an empty folder of the test's)."""
    node = setting.node
    if isinstance(node, Bool):
        return not setting.default
    if isinstance(node, Num):
        low = node.minimum if node.minimum is not None else 0
        high = node.maximum if node.maximum is not None else low + 10
        value = low + 1 if low + 1 <= high and low + 1 != setting.default else high
        return int(value) if node.integer else float(value)
    if isinstance(node, Arr):
        return ["Dana", "Lee"]
    assert isinstance(node, Str)
    if node.enum:
        return next(v for v in node.enum if v != setting.default)
    if setting.key == "accountId":
        return "12345678-1234-1234-1234-123456789abc"
    if setting.key == "callbackFileFolder":
        return str(folder)  # checked on disk
    if setting.key == "topicTaxonomy":
        return str(taxonomy.BUNDLED)  # a taxonomy file that exists
    return "something-else"


def options_holding(key: str, *built: Any) -> list:
    """Every value the built options hold for the setting `key`, from whichever dataclass declares it."""
    found = []
    todo: list = list(built)
    while todo:
        holder = todo.pop()
        for f in dataclasses.fields(holder):
            value = getattr(holder, f.name)
            if dataclasses.is_dataclass(value) and not isinstance(value, type):
                todo.append(value)
            elif SETTING in f.metadata and f.metadata[SETTING].key == key:
                found.append(value)
    return found


def test_every_declared_setting_is_in_the_schema_with_its_default():
    section = config.SCHEMA.fields["speechproc"].fields
    assert set(section) == set(LOCAL_SETTINGS)
    for key, setting in LOCAL_SETTINGS.items():
        assert section[key] is setting.node
        assert DEFAULTS[f"speechproc.{key}"] == setting.default


@pytest.mark.parametrize("key", sorted(LOCAL_SETTINGS))
def test_a_configured_value_reaches_the_options_of_every_stage_that_declares_it(key, tmp_path):
    value = a_valid_value(LOCAL_SETTINGS[key], tmp_path)
    companions = {"encryptOriginal": {"encryption": {"publicKeyId": "a-key"}}}  # what the setting needs beside it
    settings = config.validate({"speechproc": {key: value}, **companions.get(key, {})})
    held = options_holding(key, build(settings), callback_options(settings), download_options(settings),
                           encryption_options(settings))
    assert held, f"no options field declares {key}"
    expected = tuple(value) if isinstance(value, list) else value
    assert all(v == expected for v in held), (key, held)


@pytest.mark.parametrize("key", sorted(LOCAL_SETTINGS))
def test_a_value_of_the_wrong_type_is_refused_with_the_key_path(key):
    wrong = "yes" if not isinstance(LOCAL_SETTINGS[key].node, Str) else 7
    with pytest.raises(errors.ConfigurationError, match=f"speechproc.{key}") as raised:
        config.validate({"speechproc": {key: wrong}})
    assert raised.value.code == errors.INVALID_VALUE


def test_settings_shared_by_stages_are_one_declaration():
    threads = dict(declared(RecognitionOptions))["threads"]
    assert dict(declared(DiarizationOptions))["threads"] is threads  # one setting, two stages
    built = build(config.validate({"speechproc": {"threads": 3}}))
    assert built.recognition.threads == built.diarization.threads == 3


def test_the_defaults_of_the_options_are_the_declared_defaults():
    built = build(config.validate({}))
    assert built.recognition == RecognitionOptions(language="en-US")
    assert built.diarization == DiarizationOptions()
    assert callback_options(config.validate({})) == CallbackOptions()
    assert download_options(config.validate({})) == DownloadOptions()


def test_options_take_keywords_only():
    with pytest.raises(TypeError):
        RecognitionOptions("en-US", "tiny.en")  # type: ignore[misc]
