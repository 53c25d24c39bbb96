"""Public keys for client-supplied encryption, stored in the catalog (the v3 `/security/public-keys` endpoints).

Each key is a definition of kind `publicKey`, named by its `publicKeyId` (a UUID): its binary OpenPGP
encoding (armored in the catalog's JSON), fingerprint and `publicKeyHash`. A configuration names one with
`encryption.publicKeyId`; `resolve` turns that into the `PublicKey` a job encrypts to.
"""
from __future__ import annotations

import base64
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypedDict, cast

from speechproc import errors as E
from speechproc import results
from speechproc.formats import openpgp, v3json
from speechproc.store.database import Catalog
from speechproc.store.media_items import using

KIND = "publicKey"
HREF = "/v3/security/public-keys"


class StoredKey(TypedDict):
    """A public key as the catalog keeps it."""

    publicKeyId: str
    publicKeyHash: str  # SHA-256 of its binary OpenPGP encoding
    fingerprint: str
    armored: str
    binary: str  # base64 of the binary OpenPGP encoding
    dateCreated: str
    dateModified: str


class AddedKey(TypedDict):
    """What `POST /security/public-keys` answers."""

    _links: results.SelfLink
    publicKeyId: str
    publicKeyHash: str


class _ShownKeyRequired(AddedKey):
    fingerprint: str
    dateCreated: str


class ShownKey(_ShownKeyRequired, total=False):
    """A stored key as it is shown: without the key itself but in `get_key`'s answer."""

    publicKey: str  # armored


class KeyListing(TypedDict):
    """`GET /security/public-keys`."""

    _links: results.SelfLink
    publicKeys: list[ShownKey]


def _links(key_id: str) -> results.SelfLink:
    return {"self": {"href": f"{HREF}/{key_id}"}}


def _shown(stored: StoredKey, with_key: bool = False) -> ShownKey:
    out: ShownKey = {"_links": _links(stored["publicKeyId"]), "publicKeyId": stored["publicKeyId"],
                     "publicKeyHash": stored["publicKeyHash"], "fingerprint": stored["fingerprint"],
                     "dateCreated": stored["dateCreated"]}
    if with_key:
        out["publicKey"] = stored["armored"]
    return out


def add_key(path: str | Path, catalog: Catalog | None = None) -> AddedKey:
    """`POST /security/public-keys`: check the key file (ConfigurationError saying why it is refused), store
    it under a new publicKeyId; `{_links, publicKeyId, publicKeyHash}`."""
    checked = openpgp.check_key(openpgp.read_key_file(Path(path)), str(path))
    key_id = str(uuid.uuid4())
    body = {"publicKeyId": key_id, "publicKeyHash": checked.key_hash, "fingerprint": checked.fingerprint,
            "armored": checked.armored, "binary": base64.b64encode(checked.data).decode("ascii")}
    with using(catalog) as cat:
        cat.definitions.put(KIND, key_id, body, v3json.utc_now())
    return {"_links": _links(key_id), "publicKeyId": key_id, "publicKeyHash": checked.key_hash}


def _stored(cat: Catalog, key_id: str) -> StoredKey:
    found = _read(cat, key_id)
    if found is None:
        raise E.NotFoundError(E.RESOURCE_NOT_FOUND, f"public key {key_id} was not found")
    return found


def _read(cat: Catalog, key_id: str) -> StoredKey | None:
    return cast("StoredKey | None", cat.definitions.get(KIND, key_id))


def list_keys(catalog: Catalog | None = None) -> KeyListing:
    """`GET /security/public-keys`: every stored key, without the key itself."""
    with using(catalog) as cat:
        stored = cast("list[StoredKey]", cat.definitions.list(KIND))
    stored.sort(key=lambda d: (d["dateCreated"], d["publicKeyId"]))
    return {"_links": {"self": {"href": HREF}}, "publicKeys": [_shown(d) for d in stored]}


def get_key(key_id: str, catalog: Catalog | None = None) -> ShownKey:
    """`GET /security/public-keys/{id}`: the key with its armored text (`publicKey`)."""
    with using(catalog) as cat:
        return _shown(_stored(cat, key_id), with_key=True)


def delete_key(key_id: str, catalog: Catalog | None = None) -> None:
    """`DELETE /security/public-keys/{id}`. Items already encrypted to it stay as they are."""
    with using(catalog) as cat:
        if not cat.definitions.delete(KIND, key_id):
            raise E.NotFoundError(E.RESOURCE_NOT_FOUND, f"public key {key_id} was not found")


def resolve(key_id: str | None, catalog: Catalog) -> openpgp.PublicKey | None:
    """The stored key a configuration names (`encryption.publicKeyId`); ConfigurationError when there is none."""
    if key_id is None:
        return None
    found = _read(catalog, key_id)
    if found is None:
        raise E.ConfigurationError(E.INVALID_VALUE, f"encryption.publicKeyId: public key {key_id!r} is not stored "
                                   "(speechproc keys add FILE; speechproc keys list)")
    data = base64.b64decode(found["binary"])
    if openpgp.key_expired(data):
        raise E.ConfigurationError(E.INVALID_VALUE, f"encryption.publicKeyId: public key {key_id!r} has expired "
                                   "(speechproc keys add a renewed key)")
    return openpgp.PublicKey(found["publicKeyId"], found["publicKeyHash"], data)


def configured_key_id(raw: Mapping[str, Any]) -> str | None:
    """`encryption.publicKeyId` of a configuration, or None."""
    section = raw.get("encryption")
    key_id = section.get("publicKeyId") if isinstance(section, dict) else None
    return key_id if isinstance(key_id, str) else None
