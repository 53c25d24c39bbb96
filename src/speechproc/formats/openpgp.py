"""Client-supplied encryption: OpenPGP public keys checked once, and data encrypted to one of them in memory.

A key is checked when it is stored (`check_key`): one OpenPGP certificate, armored or binary, with no secret
key material, not revoked, and able to encrypt now. It is kept as its binary encoding; its `publicKeyHash`
is the SHA-256 of that encoding (the same for the armored and the binary export of one key). `encrypt`
turns bytes into a binary OpenPGP message to the key (what `gpg --decrypt` reads); nothing is written here.
"""
from __future__ import annotations

import hashlib
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, cast

import pysequoia

from speechproc import errors as E
from speechproc.formats import JSON_SUFFIX
from speechproc.results import Encryption, MediaItem
from speechproc.schema import Bool, Setting

SUFFIX = ".gpg"  # added to the name of every file written encrypted: call.v3.json.gpg
CONTENT_TYPE = "application/pgp-encrypted"  # of an encrypted callback body
MAX_KEY_BYTES = 1 << 20  # a public key file larger than this is refused unread
ARMOR_PRIVATE = b"-----BEGIN PGP PRIVATE KEY BLOCK-----"


@dataclass(frozen=True, kw_only=True)
class EncryptionOptions:
    """The local settings of client-supplied encryption."""

    original: bool = Setting("encryptOriginal", False, Bool(),
                             "With encryption, also write an encrypted copy of the recording (NAME.original.EXT.gpg, "
                             "the stream original-encrypted): the one copy kept of a recording fetched from a URL."
                             ).field()


@dataclass(frozen=True)
class PublicKey:
    """A stored public key as a job carries it: plain, picklable data."""

    key_id: str  # publicKeyId, a UUID
    key_hash: str  # publicKeyHash, the SHA-256 of `data`
    data: bytes  # the certificate's binary OpenPGP encoding

    def reference(self) -> Encryption:
        """`{publicKeyId, publicKeyHash}`: what an encrypted item shows of its key."""
        return {"publicKeyId": self.key_id, "publicKeyHash": self.key_hash}


@dataclass(frozen=True)
class CheckedKey:
    """A key file that passed `check_key`."""

    data: bytes  # binary encoding
    armored: str
    fingerprint: str
    key_hash: str


def _refused(why: str) -> E.ConfigurationError:
    return E.ConfigurationError(E.INVALID_VALUE, why)


def _reason(exc: Exception) -> str:
    """The first line of a Sequoia error (its stack trace left out)."""
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


def read_key_file(path: Path) -> bytes:
    """The bytes of a key file, refused unread when it is not a regular file or is larger than MAX_KEY_BYTES."""
    try:
        if not path.is_file():
            raise _refused(f"{path}: not a file")
        size = path.stat().st_size
        if size > MAX_KEY_BYTES:
            raise _refused(f"{path}: {size} bytes is not an OpenPGP public key (at most {MAX_KEY_BYTES} bytes)")
        with path.open("rb") as handle:
            data = handle.read(MAX_KEY_BYTES + 1)
    except OSError as exc:
        raise _refused(f"{path}: cannot be read ({exc.strerror or exc})") from None
    if len(data) > MAX_KEY_BYTES:
        raise _refused(f"{path}: larger than {MAX_KEY_BYTES} bytes; not an OpenPGP public key")
    return data


def check_key(data: bytes, name: str = "the key") -> CheckedKey:
    """One OpenPGP public key that can encrypt, from armored or binary bytes; ConfigurationError (10009)
    saying why otherwise (empty, not OpenPGP, several keys, a private key, revoked, no encryption key)."""
    if not data.strip():
        raise _refused(f"{name}: empty; export a public key with gpg --armor --export KEY")
    if ARMOR_PRIVATE in data[:4096]:
        raise _refused(f"{name}: a private key; give the public key only (gpg --armor --export KEY)")
    try:
        with warnings.catch_warnings():  # Sequoia warns when it reads secret key material, refused below
            warnings.simplefilter("ignore", DeprecationWarning)
            certs = pysequoia.Cert.split_bytes(data)
            if len(certs) != 1:
                raise _refused(f"{name}: holds {len(certs)} OpenPGP keys; give exactly one public key")
            cert = pysequoia.Cert.from_bytes(data)  # refuses trailing packets that are not part of a key
            private = cert.has_secret_keys
    except E.ConfigurationError:
        raise
    except Exception as exc:
        raise _refused(f"{name}: not an OpenPGP public key ({_reason(exc)})") from None
    if private:
        raise _refused(f"{name}: a private key; give the public key only (gpg --armor --export KEY)")
    if cert.is_revoked:
        raise _refused(f"{name}: the key {cert.fingerprint} is revoked")
    if expired(cert):
        raise _refused(f"{name}: the key {cert.fingerprint} expired on {cert.expiration:%Y-%m-%d}")
    binary = bytes(cert)
    try:
        pysequoia.encrypt(b"", recipients=[cert], armor=False)
    except Exception as exc:
        raise _refused(f"{name}: the key {cert.fingerprint} cannot encrypt ({_reason(exc)}); give a key with a "
                       "valid encryption subkey") from None
    return CheckedKey(binary, str(cert), cert.fingerprint, hashlib.sha256(binary).hexdigest())


def expired(cert: Any) -> bool:
    """Whether a key (a pysequoia `Cert`) has passed its expiration date."""
    until = cert.expiration
    return until is not None and until <= datetime.now(timezone.utc)


def key_expired(data: bytes) -> bool:
    """Whether stored key bytes have passed their expiration date (since they were added)."""
    return expired(pysequoia.Cert.from_bytes(data))


def encrypt(data: bytes | str, key: PublicKey) -> bytes:
    """`data` (text as UTF-8) as a binary OpenPGP message to `key`."""
    plain = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    try:
        cert = pysequoia.Cert.from_bytes(key.data)
        return bytes(pysequoia.encrypt(plain, recipients=[cert], armor=False))
    except Exception as exc:
        raise E.SpeechprocError(E.INVALID_VALUE, f"encryption to public key {key.key_id} failed: {_reason(exc)}",
                                500) from None


def sealed_name(path: Path) -> Path:
    """The name an encrypted output is written under: `.gpg` added."""
    return path.with_name(path.name + SUFFIX)


def original_copy(json_path: Path, recording: Path) -> Path:
    """Where the encrypted copy of `recording` goes beside the item's sealed JSON: `call.original.wav.gpg`."""
    plain = plain_name(json_path).name
    base = plain[: -len(JSON_SUFFIX)] if plain.endswith(JSON_SUFFIX) else plain
    return json_path.with_name(base + ".original" + (recording.suffix or ".audio") + SUFFIX)


def plain_name(path: Path) -> Path:
    """The name without `.gpg` (what `gpg --decrypt` output is usually saved as)."""
    return path.with_name(path.name[: -len(SUFFIX)]) if path.name.endswith(SUFFIX) else path


CATALOG_KEYS = ("_links", "formatVersion", "mediaId", "status", "dateCreated", "dateFinished", "timeToLiveInSeconds",
                "expiresOn", "mediaContentType", "length", "errors")


def catalog_item(item: MediaItem, key: PublicKey | None) -> MediaItem:
    """What the catalog keeps of an item encrypted to `key`: what listing needs and the key's reference, no
    results, metadata or warnings (the item as it is when `key` is None)."""
    if key is None:
        return item
    fields: Mapping[str, object] = item
    kept = cast(MediaItem, {k: fields[k] for k in CATALOG_KEYS if k in fields})
    kept["encryption"] = key.reference()
    return kept


def is_encrypted(item: Any) -> bool:
    """Whether a stored item's results were written encrypted (the catalog then keeps none of them)."""
    return isinstance(item, dict) and isinstance(item.get("encryption"), dict)


def not_readable(media_id: str, what: str) -> E.NotFoundError:
    """The v3 404 of an encrypted item's transcript or metadata: only its encrypted files hold them."""
    return E.NotFoundError(E.RESOURCE_NOT_FOUND, f"media {media_id} is encrypted: its {what} is only in its "
                           "encrypted files")
