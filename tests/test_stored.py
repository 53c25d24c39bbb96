"""A stored media item read back: served and sent captions are the files' text, DFXP language included."""
from __future__ import annotations

import base64
import json

from speechproc import api
from speechproc.config import v3 as config
from speechproc.config.options import callback_options
from speechproc.conversation import Token
from speechproc.delivery import bodies
from speechproc.formats import get_writer, v3json

FRENCH = {"speechModel": {"language": "fr-FR"}, "speechproc": {"model": "base"},
          "publish": {"callbacks": [{"url": "https://example.com/dfxp", "type": "transcript", "format": "dfxp"},
                                    {"url": "https://example.com/all"}]}}


def _words() -> list[Token]:
    said = [Token(1, 0.9, 0, 400, "Bonjour", speaker="Agent"), Token(2, 0.9, 450, 900, "madame", speaker="Agent")]
    return [Token(0, 1.0, 0, 900, "Agent", m="turn", speaker="Agent"), *said]


def _item() -> dict:
    words = _words()
    return {"mediaId": "00000000-0000-4000-8000-00000000f00d", "status": "finished",
            "dateCreated": "2026-11-21T00:00:00.000Z", "dateFinished": "2026-11-21T00:01:00.000Z",
            "metadata": {}, "transcript": {"confidence": 0.9, "words": [v3json.word_json(w) for w in words],
                                           "voiceActivity": []}}


def test_a_french_items_served_sent_and_written_dfxp_agree(catalog):
    on_disk = get_writer("dfxp", "fr").render(_words())  # what the publishing step writes
    assert 'xml:lang="fr"' in on_disk
    item = _item()
    catalog.media.add(item, "/calls/appel.wav", "h", "c", [], FRENCH)

    assert api.get_transcript(item["mediaId"], "dfxp", catalog=catalog) == on_disk
    served = api.get_transcript(item["mediaId"], "json", ["dfxp"], catalog=catalog)
    [alternate] = served["transcript"]["alternateFormats"]
    assert base64.b64decode(alternate["data"]).decode() == on_disk

    transcript_cb, analytics_cb = bodies.plan(item, callback_options(config.validate(FRENCH)), {}, 0.0)
    assert transcript_cb["body"].decode() == on_disk
    sent = json.loads(analytics_cb["body"])["transcript"]["alternateFormats"]
    assert base64.b64decode(next(a for a in sent if a["format"] == "dfxp")["data"]).decode() == on_disk


def test_an_item_without_a_language_is_english(catalog):
    item = _item()
    catalog.media.add(item, "/calls/call.wav", "h", "c", [], {})
    assert 'xml:lang="en"' in api.get_transcript(item["mediaId"], "dfxp", catalog=catalog)
