"""Every output of the bundled samples under many configurations, as digests that ignore ids and dates.

Runs `speechproc run` over sample_media/ with each configuration below (the bundled configs/ files and
configurations that add redaction, categories, callbacks, expiry, metadata and encryption), then the catalog
commands (`export`, `media get`, `transcript`, `query`, the corpus report), each in a fresh SPEECHPROC_HOME,
and writes one JSON manifest: output path -> SHA-256 of its text with every UUID, date and duration of
processing masked (an encrypted file is decrypted first: its ciphertext differs at every run).

    python scripts/same_outputs.py --out /tmp/before.json
    python scripts/same_outputs.py --out /tmp/after.json --against /tmp/before.json

With --against it lists every output that differs and exits 1 when any does.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_media"

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.I)
DATE = re.compile(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:?\d\d)?")
KEY_HASH = re.compile(r'"publicKeyHash": "[0-9a-f]+"')
ELAPSED = re.compile(r'"(processingSeconds|elapsedSeconds|generated)": [0-9.e+-]+')

DETECTORS = {
    "prediction": {
        "detectors": [
            {"detectorName": "PCI",
             "redactor": {"transcript": {"replacement": "[redacted]"}, "audio": {"tone": 170, "gain": 0.5}}},
            {"detectorName": "SSN", "redactor": {"transcript": {"replacement": "[ssn]"}}},
            {"detectorName": "Number"},
            {"detectorName": "PII", "redactor": {"transcript": {"replacement": "[pii]"}}},
        ]
    }
}

# name -> (configuration: a configs/ file or a dict merged over configs/callcenter.yaml, extra run options)
CONFIGURATIONS: dict[str, object] = {
    "default": "configs/default.yaml",
    "callcenter": "configs/callcenter.yaml",
    "mono-call": "configs/mono-call.yaml",
    "stereo-call": "configs/stereo-call.yaml",
    "redaction": DETECTORS,
    "definitions": {
        "categories": [{"allCategories": True}],
        "spotting": {"groups": [{"groupName": "billing"}, {"groupName": "churn"}]},
        "vocabularies": [{"vocabularyName": "products"}],
        "publish": {"enableAnalyticIndexing": True},
    },
    "callbacks-expiry": {
        "timeToLiveInSeconds": 86400,
        "publish": {"callbacks": [{"url": "file://{home}/callbacks/"}]},
    },
    "encryption": {"encryption": {"publicKeyId": "{key}"}},
}


def normalised(data: bytes, work: Path) -> bytes:
    """The bytes with ids, dates, this run's and the checkout's folders, its key's hash and timings masked."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return data
    text = text.replace(str(work), "WORK").replace(str(ROOT), "ROOT")  # the same from any checkout
    text = KEY_HASH.sub('"publicKeyHash": "HASH"', text)
    text = UUID.sub("UUID", text)
    text = DATE.sub("DATE", text)
    text = ELAPSED.sub(r'"\1": N', text)
    return text.encode("utf-8")


def digests(folder: Path, prefix: str, home: Path, work: Path) -> dict[str, str]:
    """Each file's masked digest; an encrypted file's of its plaintext, decrypted with the home's key."""
    found = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            name = prefix + "/" + path.relative_to(folder).as_posix()
            data = path.read_bytes()
            if path.suffix == ".gpg" or data.startswith(b"-----BEGIN PGP MESSAGE"):
                data = gpg(home, "--decrypt", data=data)
            found[name] = hashlib.sha256(normalised(data, work)).hexdigest()
    return found


def unnamed(found: dict[str, str]) -> dict[str, str]:
    """Files named after media ids, by their masked names and digests (the ids change at every run)."""
    masked = sorted((UUID.sub("UUID", name), digest) for name, digest in found.items())
    return {f"{name}#{i}": digest for i, (name, digest) in enumerate(masked)}


def speechproc(home: Path, *args: str, out: Path | None = None) -> bytes:
    env = dict(os.environ, SPEECHPROC_HOME=str(home))
    done = subprocess.run(
        [sys.executable, "-m", "speechproc.cli", *args], env=env, cwd=ROOT, capture_output=True, check=False
    )
    if done.returncode not in (0, 1):
        raise SystemExit(f"speechproc {' '.join(args)} exited {done.returncode}:\n{done.stderr.decode()[-3000:]}")
    if out is not None:
        out.write_bytes(done.stdout)
    return done.stdout


def store_definitions(home: Path) -> None:
    """The bundled categories, keyword groups and vocabulary, stored in this home's catalog."""
    for kind, folder in (("categories", "categories"), ("groups", "groups"), ("vocabularies", "vocabularies")):
        for path in sorted((ROOT / "configs" / folder).glob("*.yaml")):
            speechproc(home, kind, "put", path.stem, str(path))


def configuration_file(name: str, spec: object, home: Path) -> Path:
    home.mkdir(parents=True, exist_ok=True)
    store_definitions(home)
    if isinstance(spec, str):
        return ROOT / spec
    import yaml

    merged = yaml.safe_load((ROOT / "configs/callcenter.yaml").read_text())
    text = json.dumps(spec)
    key = ""
    if "{key}" in text:
        key = add_key(home)
    text = text.replace("{home}", str(home)).replace("{key}", key)
    for top, value in json.loads(text).items():
        if isinstance(value, dict) and isinstance(merged.get(top), dict):
            merged[top].update(value)
        else:
            merged[top] = value
    if "publish" in merged:
        (home / "callbacks").mkdir(parents=True, exist_ok=True)
        merged.setdefault("speechproc", {})["callbackFileFolder"] = str(home / "callbacks")
    path = home / f"{name}.json"
    path.write_text(json.dumps(merged))
    return path


def gpg(home: Path, *args: str, data: bytes | None = None) -> bytes:
    keyring = home / "gnupg"
    keyring.mkdir(mode=0o700, parents=True, exist_ok=True)
    done = subprocess.run(["gpg", "--batch", "--quiet", *args], input=data, capture_output=True,
                          env=dict(os.environ, GNUPGHOME=str(keyring)), check=True, timeout=120)
    return done.stdout


def add_key(home: Path) -> str:
    """A fresh OpenPGP key made by gpg, its public half stored in this home's catalog; its publicKeyId."""
    gpg(home, "--passphrase", "", "--quick-gen-key", "Outputs <outputs@example.com>", "default", "default", "never")
    public = home / "key.asc"
    public.write_bytes(gpg(home, "--armor", "--export", "outputs@example.com"))
    added = json.loads(speechproc(home, "keys", "add", str(public)))
    return str(added["publicKeyId"])


def run_all(work: Path, only: list[str]) -> dict[str, str]:
    manifest: dict[str, str] = {}
    for name, spec in CONFIGURATIONS.items():
        if only and name not in only:
            continue
        print(f"{name} ...", file=sys.stderr, flush=True)
        home = work / f"same-outputs-{name}"
        out = work / f"out-{name}"
        config = configuration_file(name, spec, home)
        speechproc(home, "run", str(SAMPLES), "--config", str(config), "--out", str(out), "--report", "-q",
                   out=work / "summary.json")
        catalog = work / f"catalog-{name}"
        catalog.mkdir()
        speechproc(home, "export", "-o", str(catalog / "export.csv"))
        speechproc(home, "media", "list", out=catalog / "media-list.json")
        for item in json.loads(speechproc(home, "media", "list"))["media"]:
            known_as = f"{item.get('length')}ms"  # the ids change at every run; the recordings' lengths do not
            speechproc(home, "media", "get", item["mediaId"], out=catalog / f"get-{known_as}.json")
            speechproc(home, "transcript", item["mediaId"], out=catalog / f"transcript-{known_as}.txt")
        speechproc(home, "query", "SELECT * FROM media", out=catalog / "query.json")
        speechproc(home, "report", "--corpus", "-o", str(catalog / "corpus.html"))
        manifest.update(digests(out, name, home, work))
        manifest.update(digests(catalog, name + "/catalog", home, work))
        if (home / "callbacks").is_dir():
            manifest.update(unnamed(digests(home / "callbacks", name + "/callbacks", home, work)))
    return manifest


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="where to write the manifest (JSON)")
    parser.add_argument("--against", type=Path, help="an earlier manifest to compare with")
    parser.add_argument("--only", nargs="*", default=[], choices=sorted(CONFIGURATIONS), help="these configurations")
    parser.add_argument("--keep", type=Path, help="keep the outputs in this folder (empty or new)")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="same-outputs-")) if args.keep is None else args.keep
    work.mkdir(parents=True, exist_ok=True)
    try:
        manifest = run_all(work, args.only)
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    args.out.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    print(f"{len(manifest)} outputs", file=sys.stderr)
    if args.against is None:
        return 0
    before = json.loads(args.against.read_text())
    differ = sorted(k for k in set(before) | set(manifest) if before.get(k) != manifest.get(k))
    for name in differ:
        print(f"differs: {name} ({'missing' if name not in manifest else 'new' if name not in before else 'changed'})")
    print(f"{len(differ)} of {len(manifest)} outputs differ", file=sys.stderr)
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
