"""The v3 listing filters, usage errors as v3 bodies, transcripts byte for byte, captions of silence."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from conftest import invoke, write_wav
from speechproc import api, errors
from speechproc.config import v3 as config
from speechproc.formats import get_writer
from speechproc.store.database.catalog import Catalog

# ---------------------------------------------------------------- usage errors

@pytest.mark.parametrize("args", [
    ("run", ".", "--config", "/tmp"),          # a folder where a file is wanted
    ("run", ".", "--no-such-option"),
    ("media", "list", "--limit", "1001"),      # the v3 maximum is 1000
    ("media", "list", "--limit", "ten"),
    ("media", "list", "--sort-order", "sideways"),
    ("transcript",),                           # a missing argument
])
def test_a_usage_error_prints_the_v3_body_and_exits_2(args):
    code, out = invoke(*args)
    assert code == 2
    assert out["status"] == 400 and out["warnings"][0]["code"] == 10009 and out["warnings"][0]["message"]


def test_the_installed_program_prints_the_v3_body_for_a_usage_error(tmp_path):
    done = subprocess.run([sys.executable, "-m", "speechproc.cli", "run", str(tmp_path), "--config", str(tmp_path)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert json.loads(done.stdout)["warnings"][0]["code"] == 10009
    assert "Usage:" in done.stderr and "--config" in done.stderr


def test_help_and_version_still_exit_0():
    assert invoke("--help")[0] == 0
    assert invoke("media", "list", "--help")[0] == 0
    assert invoke("--version")[0] == 0


# ---------------------------------------------------------------- listing filters

def _item(media_id: str, created: str, metadata: dict, words: str = "") -> dict:
    tokens = [{"p": i, "c": 0.9, "s": i * 100, "e": i * 100 + 90, "w": w} for i, w in enumerate(words.split())]
    item = {"mediaId": media_id, "status": "finished", "dateCreated": created, "metadata": metadata}
    if tokens:
        item["transcript"] = {"words": tokens}
    return item


@pytest.fixture
def catalog(tmp_path):
    with Catalog(tmp_path / "catalog.sqlite3") as cat:
        rows = [
            _item("m1", "2026-10-30T23:59:59.999Z", {"externalId": "call-1", "title": "Billing question",
                                                     "extended": {"queue": "billing", "team": {"id": 7}}},
                  "I was charged twice for my refund"),
            _item("m2", "2026-10-31T00:00:00.000Z", {"externalId": "call-2", "title": "Support",
                                                     "extended": {"queue": "support", "team": {"id": 8}}},
                  "my internet is down again"),
            _item("m3", "2026-11-01T12:00:00.000Z", {"externalId": "call-1", "title": "Frost and refunds",
                                                     "extended": {"queue": "billing"}}),
            _item("m4", "2026-11-02T08:30:00.000Z", {}, "thank you for calling"),
        ]
        for row in rows:
            cat.media.add(row, f"/calls/{row['mediaId']}.wav", "h", "c", [])
        yield cat


def _ids(catalog, **filters) -> list[str]:
    return [m["mediaId"] for m in api.list_media(catalog=catalog, **filters)["media"]]


def test_listing_is_newest_first_and_sort_order_reverses_it(catalog):
    assert _ids(catalog) == ["m4", "m3", "m2", "m1"]
    assert _ids(catalog, sort_order="asc") == ["m1", "m2", "m3", "m4"]
    assert _ids(catalog, limit=2) == ["m4", "m3"]
    listing = api.list_media(catalog=catalog, limit=2, sort_order="asc")
    assert listing["pagination"] == {"limit": 2, "sortOrder": [{"field": "dateCreated", "direction": "asc"}]}
    assert listing["_links"]["self"]["href"] == "/v3/media?limit=2&sortOrder=asc"


def test_external_id_and_date_filters(catalog):
    assert _ids(catalog, external_id="call-1") == ["m3", "m1"]
    assert _ids(catalog, on_or_after_date="2026-10-31") == ["m4", "m3", "m2"]
    assert _ids(catalog, on_or_before_date="2026-10-30") == ["m1"]  # the whole day, to its last millisecond
    assert _ids(catalog, on_or_after_date="2026-11-01T13:00:00+01:00", on_or_before_date="2026-11-01") == ["m3"]
    assert _ids(catalog, on_or_after_date="2026-11-03") == []


def test_after_and_before_are_media_id_cursors(catalog):
    assert _ids(catalog, after="m2") == ["m4", "m3"]
    assert _ids(catalog, before="m3", sort_order="asc") == ["m1", "m2"]
    assert _ids(catalog, after="m1", before="m4") == ["m3", "m2"]
    with pytest.raises(errors.NotFoundError):
        api.list_media(catalog=catalog, after="no-such-item")


def test_full_text_query_over_metadata_and_transcript(catalog):
    assert _ids(catalog, query="refund") == ["m1"]                 # said in the call
    assert _ids(catalog, query="refund*") == ["m3", "m1"]          # prefix: "refunds" in m3's title
    assert _ids(catalog, query="title:frost") == ["m3"]            # one field
    assert _ids(catalog, query="title:refund") == []
    assert _ids(catalog, query="charged twice") == ["m1"]          # every term must be found
    assert _ids(catalog, query='"twice charged"') == []             # a quoted phrase keeps its order
    assert _ids(catalog, query="extended.queue:support") == ["m2"]


def test_extended_filters_must_all_hold(catalog):
    assert _ids(catalog, extended_filter=["queue;billing"]) == ["m3", "m1"]
    assert _ids(catalog, extended_filter=["queue:billing", "team.id;7"]) == ["m1"]
    assert _ids(catalog, extended_filter=["Queue;billing", "team.id;8"]) == []


@pytest.mark.parametrize("filters", [
    {"limit": 0}, {"limit": 1001}, {"sort_order": "up"}, {"on_or_after_date": "yesterday"},
    {"on_or_before_date": "2026-02-30"}, {"on_or_after_date": "9" * 400}, {"query": "   "}, {"query": "x" * 5000},
    {"query": " ".join(["w"] * 40)}, {"extended_filter": ["novalue"]}, {"extended_filter": [";x"]},
    {"external_id": "a\nb"},
])
def test_bad_listing_parameters_are_configuration_errors(catalog, filters):
    with pytest.raises(errors.ConfigurationError) as err:
        api.list_media(catalog=catalog, **filters)
    assert err.value.code == 10009


def test_media_list_command_applies_the_filters(tmp_path):
    code, out = invoke("media", "list", "--on-or-after-date", "2999-01-01", "--extended-filter", "queue;x")
    assert code == 0 and out["media"] == []
    code, out = invoke("media", "list", "--after", "not-an-item")
    assert code == 1 and out["status"] == 404
    code, out = invoke("media", "list", "--on-or-before-date", "31/12/2026")
    assert code == 2 and "onOrBeforeDate" in out["warnings"][0]["message"]


# ---------------------------------------------------------------- silent recordings and transcripts

@pytest.mark.slow
def test_a_silent_recording_gets_captions_that_parsers_accept(tmp_path):
    write_wav(tmp_path / "silence.wav", np.zeros(16000 * 2), 16000)
    batch = api.process([tmp_path / "silence.wav"], config.validate({}), out_dir=tmp_path / "out")
    assert batch.items[0].status == "finished", batch.items[0].error
    srt = Path(batch.items[0].outputs["srt"])
    assert srt.stat().st_size > 0
    webvtt = pytest.importorskip("webvtt")
    assert webvtt.from_srt(str(srt)).captions == []  # a valid document without captions
    assert webvtt.read(batch.items[0].outputs["webvtt"]).captions == []
    if shutil.which("ffmpeg"):
        done = subprocess.run(["ffmpeg", "-v", "error", "-f", "srt", "-i", str(srt), "-f", "webvtt", "-"],
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr


def test_srt_of_no_words_is_one_cue_without_text():
    assert get_writer("srt").render([]) == "1\n00:00:00,000 --> 00:00:00,001\n\n"


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["text", "srt", "webvtt", "dfxp"])
def test_transcript_command_prints_exactly_the_file(processed, fmt):
    from click.testing import CliRunner

    from speechproc.cli.commands import main

    media_id = processed["call.flac"]["mediaId"]
    result = CliRunner().invoke(main, ["transcript", media_id, "--format", fmt])
    assert result.exit_code == 0
    with Catalog() as cat:
        outputs = cat.media.get(media_id)["outputs"]
    assert result.stdout_bytes == Path(outputs[fmt]).read_bytes()


def test_dates_of_every_year_compare_correctly(catalog):
    assert _ids(catalog, on_or_after_date="0999-01-01", sort_order="asc") == ["m1", "m2", "m3", "m4"]
    assert _ids(catalog, on_or_before_date="9999-12-31", limit=1) == ["m4"]
    assert _ids(catalog, on_or_before_date="0999-12-31") == []


def test_the_program_alone_shows_its_help_not_an_error_body():
    code, out = invoke()
    assert code == 2 and isinstance(out, str) and "{" not in out
