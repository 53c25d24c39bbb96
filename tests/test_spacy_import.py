"""spaCy is imported without torch where its pipeline needs none (`engines.spacy_import`): thinc alone is
kept from it, the parse is the same, and a pipeline that needs torch is never run without it."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from speechproc.engines import spacy_import
from speechproc.engines.models import BUNDLED_SPACY
from speechproc.errors import MODEL_UNAVAILABLE

TEXTS = ["I would like to cancel my order and get a refund for the broken phone.",
         "The agent promised to call me back on Monday before noon."]

PARSE = """
import json, sys
if sys.argv[1] == "torch first":
    import torch
from speechproc.engines.models import load_spacy
nlp = load_spacy()
import thinc.compat
docs = [[(t.text, t.dep_, t.head.i, t.tag_, t.lemma_) for t in nlp(text)] for text in json.loads(sys.argv[2])]
print(json.dumps({"torch": "torch" in sys.modules, "thinc_torch": thinc.compat.has_torch, "docs": docs}))
"""

MIXED = """
import sys
from speechproc.engines.models import load_spacy
from speechproc.errors import SpeechprocError
load_spacy()
import torch  # torch itself still imports where thinc is not the one asking
assert torch.tensor([1.0]).sum().item() == 1.0
try:
    load_spacy(sys.argv[1])
except SpeechprocError as exc:
    print(exc.code, exc)
"""


def bundled_folder() -> Path:
    [config] = spacy_import.config_files(BUNDLED_SPACY)
    return config.parent


def run_python(code: str, *arguments: str) -> str:
    result = subprocess.run([sys.executable, "-c", code, *arguments], capture_output=True, text=True, timeout=300,
                            env={**os.environ, "PYTHONWARNINGS": "ignore"})
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout.strip().splitlines()[-1]


def test_the_bundled_pipeline_needs_no_torch():
    assert spacy_import.needs_torch(BUNDLED_SPACY) is False
    assert spacy_import.needs_torch(bundled_folder()) is False


def test_a_pipeline_that_names_a_transformer_or_has_no_config_may_need_torch(tmp_path):
    (tmp_path / "trf").mkdir()
    (tmp_path / "trf" / "config.cfg").write_text('[components.transformer.model]\n'
                                                 '@architectures = "spacy-transformers.TransformerModel.v3"\n')
    (tmp_path / "empty").mkdir()
    assert spacy_import.needs_torch(tmp_path / "trf")
    assert spacy_import.needs_torch(tmp_path / "empty")
    assert spacy_import.needs_torch("no_such_pipeline_package")
    assert spacy_import.needs_torch("os.path")  # a module, not a package


@pytest.mark.slow
def test_the_parse_is_the_same_with_torch_hidden_from_thinc_or_not():
    hidden = json.loads(run_python(PARSE, "hidden", json.dumps(TEXTS)))
    first = json.loads(run_python(PARSE, "torch first", json.dumps(TEXTS)))
    assert (hidden["torch"], hidden["thinc_torch"]) == (False, False)
    assert (first["torch"], first["thinc_torch"]) == (True, True)  # torch already there: thinc has it
    assert hidden["docs"] == first["docs"]
    assert hidden["docs"][0][2][:2] == ["like", "ROOT"]


@pytest.mark.slow
def test_a_pipeline_that_needs_torch_after_one_that_did_not_is_a_clear_error(tmp_path):
    copy = shutil.copytree(bundled_folder(), tmp_path / "needs-torch")
    with open(copy / "config.cfg", "a", encoding="utf-8") as f:
        f.write("\n# runs a spacy-transformers layer\n")
    said = run_python(MIXED, str(copy))
    assert said.startswith(f"{MODEL_UNAVAILABLE} ") and "may run on torch" in said and "process of its own" in said, said
