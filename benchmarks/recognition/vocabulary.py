#!/usr/bin/env python3
"""Custom vocabulary at 10 and at 1,000 terms: hot words alone, and hot words with the correction.

Test audio is synthesised with espeak-ng (two voices): 20 sentences that each hold one of 10 invented
product or person names, and 20 control sentences that hold none. Every condition runs through speechproc's
own pipeline (`api.process`, tiny.en, diarization off) with its configuration:
  none            no vocabulary
  needed10        the 10 needed terms, hot words only (speechproc.vocabularyCorrection false)
  needed10+fix    the 10 needed terms, hot words and the correction
  names1000       the 10 hidden among 990 real surnames (Faker's lists of 7 languages, seeded sample), as a
                  contact centre's list of customers, agents and products reads: hint only
  names1000+fix   the same with the correction
  soup1000        the 10 hidden among 990 names made of the same 30 syllables as the 10 (seeded): many are
                  near neighbours of a term, a harder list than any real one: hint only
  soup1000+fix    the same with the correction
"hint only" is speechproc.vocabularyCorrection false: the hint, and the second pass a recording takes when
its vocabulary overflowed the hint.
Measured as the biasing literature does: B-WER (errors on the listed words, insertions of listed words
included), U-WER (errors on all other words), term recall (term occurrences recognised exactly), and on the
control sentences the false replacements (words that became a vocabulary term) and their U-WER. Also the
time of the correction alone: 1,000 terms over a one-hour transcript (10,000 words).

Usage: python benchmarks/recognition/vocabulary.py [--json benchmarks/recognition/vocabulary.result.json]
       (needs `pip install faker`)
"""
from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "src"))

TERMS = ["Zentrik", "Okonkwo", "Quorvane", "Velmora", "Trivexa", "Nimbrella", "Kasparian", "Draxilon", "Oxyvell",
         "Tarvonex"]
TERM_SENTENCES = [
    "I ordered the Zentrik router last week and it stopped working.", "Is the Zentrik warranty still valid?",
    "Please ask Doctor Okonkwo to call me back tomorrow.", "Doctor Okonkwo said the results are fine.",
    "The Quorvane subscription was charged twice this month.", "I want to upgrade my Quorvane plan.",
    "My manager, Ms Velmora, approved the refund yesterday.", "Could you transfer me to Velmora in billing?",
    "Can you reset the password on my Trivexa account?", "The Trivexa app keeps asking me to log in.",
    "We moved all our files to Nimbrella storage in March.", "Nimbrella sent me an invoice I do not recognise.",
    "Mister Kasparian will sign the contract on Friday.", "I spoke with Kasparian about the delivery date.",
    "The Draxilon update broke the printer driver again.", "Where do I download the Draxilon installer?",
    "I would like to cancel the Oxyvell plan, please.", "The Oxyvell modem has a red light on it.",
    "Our Tarvonex gateway keeps dropping the connection.", "Is Tarvonex support open on Sunday?",
]
CONTROL_SENTENCES = [
    "I would like to cancel my plan and get a refund please.", "The printer in the office stopped working again.",
    "Can you tell me when the technician will arrive?", "My internet has been slow for three days.",
    "I was charged twice for the same order.", "Please send the invoice to my email address.",
    "The package arrived damaged and the box was wet.", "I need to change the address on my account.",
    "Thank you for your help, have a nice evening.", "How long will the repair take?",
]
VOICES = (["-v", "en-us+m3", "-p", "35", "-s", "160"], ["-v", "en-us+f4", "-p", "70", "-s", "155"])
SYLLABLES = ["ka", "lo", "mi", "ra", "ven", "tor", "bel", "dri", "qua", "zen", "vo", "nex", "ti", "mar", "sol",
             "pra", "gon", "lu", "fen", "ix", "or", "dal", "ser", "ko", "vi", "ram", "tel", "sha", "bro", "cy"]


def distractors(count: int, seed: int = 7) -> list[str]:
    """Plausible invented names (2-3 syllables), none one of TERMS."""
    rng = random.Random(seed)
    taken = {t.casefold() for t in TERMS}
    out: list[str] = []
    while len(out) < count:
        name = "".join(rng.choice(SYLLABLES) for _ in range(rng.choice((2, 3, 3))))
        if len(name) >= 5 and name not in taken:
            taken.add(name)
            out.append(name.capitalize())
    return out


SURNAME_LOCALES = ("en_US", "de_DE", "it_IT", "fr_FR", "nl_NL", "fi_FI", "sv_SE")


def surnames(count: int, seed: int = 7) -> list[str]:
    """Real surnames of several languages (ASCII letters only, 5 letters or more), none one of TERMS."""
    import importlib

    taken = {t.casefold() for t in TERMS}
    pool: set[str] = set()
    for locale in SURNAME_LOCALES:
        provider = importlib.import_module(f"faker.providers.person.{locale}").Provider
        pool.update(n for n in provider.last_names if n.isascii() and n.isalpha() and len(n) >= 5
                    and n.casefold() not in taken)
    return random.Random(seed).sample(sorted(pool), count)


def hidden_among(others: list[str], seed: int = 11) -> list[str]:
    """The 10 terms at seeded places among `others`."""
    terms = list(others)
    rng = random.Random(seed)
    for term in TERMS:
        terms.insert(rng.randrange(len(terms) + 1), term)
    return terms


def synthesise(folder: Path) -> list[tuple[str, str, bool]]:
    """(file, reference text, holds a term) for every sentence in both voices, as 16 kHz mono WAV."""
    made = []
    for v, voice in enumerate(VOICES):
        for i, (text, term) in enumerate([(s, True) for s in TERM_SENTENCES] + [(s, False) for s in CONTROL_SENTENCES]):
            raw, wav = folder / f"raw{v}_{i}.wav", folder / f"s{v}_{i:02d}.wav"
            subprocess.run(["espeak-ng", *voice, "-w", str(raw), text], check=True)
            subprocess.run(["sox", "-D", str(raw), "-r", "16000", "-c", "1", "-b", "16", str(wav)], check=True)  # -D: no dither
            raw.unlink()
            made.append((wav.name, text, term))
    return made


def vocabulary(terms: list[str]) -> list[dict]:
    return [{"terms": [{"term": t} for t in terms]}]


def recognise(folder: Path, config: dict, out: Path) -> dict[str, list[str]]:
    from speechproc import api, results
    from speechproc.config import v3

    settings = v3.validate(config)
    batch = api.process([folder], settings, out_dir=out, force=True, deliver=False)
    words = {}
    for item in batch.items:
        assert item.status == "finished", item.error
        media = results.load(item.outputs["json"])
        words[Path(item.path).name] = [w["w"] for w in media["transcript"]["words"] if w.get("m") is None]
    return words


def norm(word: str) -> str:
    from speechproc.stages.recognition.soundalike import letters

    return letters(word)


def align(ref: list[str], hyp: list[str], substitution=None) -> list[tuple[str | None, str | None]]:
    """Levenshtein alignment as (ref word, hyp word) pairs; None on the side of an insertion or deletion.
    `substitution(a, b)` is what pairing two words costs (default: 0 alike, 1 otherwise; an insertion or a
    deletion costs 1)."""
    cost = substitution or (lambda a, b: float(a != b))
    n, m = len(ref), len(hyp)
    d = [[0.0] * (m + 1) for _ in range(n + 1)]
    for i in range(n + 1):
        d[i][0] = float(i)
    for j in range(m + 1):
        d[0][j] = float(j)
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost(ref[i - 1], hyp[j - 1]))
    pairs: list[tuple[str | None, str | None]] = []
    i, j = n, m
    while i or j:
        if i and j and abs(d[i][j] - d[i - 1][j - 1] - cost(ref[i - 1], hyp[j - 1])) < 1e-9:
            pairs.append((ref[i - 1], hyp[j - 1]))
            i, j = i - 1, j - 1
        elif i and abs(d[i][j] - d[i - 1][j] - 1) < 1e-9:
            pairs.append((ref[i - 1], None))
            i -= 1
        else:
            pairs.append((None, hyp[j - 1]))
            j -= 1
    return pairs[::-1]


def score(cases: list[tuple[str, str, bool]], heard: dict[str, list[str]], listed: set[str]) -> dict:
    biased = {norm(t) for t in TERMS}
    b_err = b_ref = u_err = u_ref = hits = occurrences = 0
    control_words = control_terms = control_err = 0
    for name, text, has_term in cases:
        ref = [norm(w) for w in text.split() if norm(w)]
        hyp = [norm(w) for w in heard[name] if norm(w)]
        for r, h in align(ref, hyp):
            if r is None:
                if h in biased:
                    b_err += 1
                else:
                    u_err += 1
                    control_err += not has_term
                continue
            if r in biased:
                b_ref += 1
                occurrences += 1
                b_err += r != h
                hits += r == h
            else:
                u_ref += 1
                u_err += r != h
                if not has_term:
                    control_err += r != h
        if not has_term:
            control_words += len(ref)
            control_terms += sum(h in listed for h in hyp)
    return {"B-WER": round(b_err / b_ref, 3), "U-WER": round(u_err / u_ref, 3),
            "term_recall": round(hits / occurrences, 3), "control_words": control_words,
            "control_false_replacements": control_terms,
            "control_false_replacement_rate": round(control_terms / control_words, 4),
            "control_WER": round(control_err / control_words, 3)}


def correction_speed() -> dict:
    from speechproc.conversation import RecognizedWord
    from speechproc.engines.models import load_whisper
    from speechproc.stages.options import VocabularyOptions, VocabularyTerm
    from speechproc.stages.recognition import vocabulary as stage

    terms = TERMS + distractors(990)
    options = VocabularyOptions(terms=tuple(VocabularyTerm(t) for t in terms))
    rng = random.Random(3)
    pool = " ".join(CONTROL_SENTENCES + TERM_SENTENCES).split()
    words = [RecognizedWord(rng.choice(pool), i * 360, i * 360 + 300, rng.random(), "Speaker") for i in range(10_000)]
    common = stage.common_words(load_whisper("tiny.en").hf_tokenizer)
    started = time.perf_counter()
    index = stage.index(options)
    indexed = time.perf_counter()
    _, changed = stage.correct(words, index, common)
    done = time.perf_counter()
    return {"terms": len(terms), "words": len(words), "index_s": round(indexed - started, 3),
            "correct_s": round(done - indexed, 3), "runs_changed": changed}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", help="write the results here")
    args = parser.parse_args()
    names, soup = hidden_among(surnames(990)), hidden_among(distractors(990))
    conditions = {
        "none": ([], True), "needed10": (TERMS, False), "needed10+fix": (TERMS, True),
        "names1000": (names, False), "names1000+fix": (names, True),
        "soup1000": (soup, False), "soup1000+fix": (soup, True),
    }
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["SPEECHPROC_HOME"] = str(Path(tmp) / "home")
        audio = Path(tmp) / "audio"
        audio.mkdir()
        cases = synthesise(audio)
        found = {}
        for name, (terms, fix) in conditions.items():
            config = {"speechproc": {"diarization": False, "vocabularyCorrection": fix}}
            if terms:
                config["vocabularies"] = vocabulary(terms)
            started = time.perf_counter()
            heard = recognise(audio, config, Path(tmp) / name)
            found[name] = {**score(cases, heard, {norm(t) for t in (terms or TERMS)}),
                           "seconds": round(time.perf_counter() - started, 1)}
            print(name, found[name], flush=True)
    result = {"command": "python benchmarks/recognition/vocabulary.py --json benchmarks/recognition/vocabulary.result.json",
              "model": "tiny.en", "sentences": {"with_term": 2 * len(TERM_SENTENCES),
                                                "control": 2 * len(CONTROL_SENTENCES)},
              "conditions": found, "correction_speed": correction_speed()}
    print(json.dumps(result["correction_speed"]))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
