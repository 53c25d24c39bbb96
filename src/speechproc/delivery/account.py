"""The account named in v3 callbacks: speechproc.accountId, else a local account's UUID made once."""
from __future__ import annotations

import json
import uuid
from pathlib import Path

from speechproc.delivery.options import CallbackOptions
from speechproc.paths import atomic_write, state_home

ACCOUNT_FILE = "account.json"


def local_account_id(home: Path | None = None) -> str:
    """The local account's UUID: made once, kept in `account.json` in the state folder, read back later.

    When two runs make it at the same time, the file written first wins and both use it."""
    path = (home or state_home()) / ACCOUNT_FILE
    found = _read_account(path)
    if found is not None:
        return found
    made = str(uuid.uuid4())
    try:
        atomic_write(path, json.dumps({"accountId": made}) + "\n", replace=False)
    except FileExistsError:
        found = _read_account(path)
        if found is not None:
            return found
        atomic_write(path, json.dumps({"accountId": made}) + "\n")  # an unreadable file of ours: made again
    return made


def _read_account(path: Path) -> str | None:
    try:
        return str(uuid.UUID(json.loads(path.read_text(encoding="utf-8"))["accountId"]))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def account(options: CallbackOptions) -> dict[str, str]:
    """`accountId` (speechproc.accountId, else the local account's) and `accountName` of the callbacks."""
    return {"accountId": (options.account_id or local_account_id()).lower(), "accountName": options.account_name}
