"""What the callbacks of a run need to know, built from the configuration by `speechproc.config`."""
from __future__ import annotations

from dataclasses import dataclass

from speechproc.configuration import CallbackEntry
from speechproc.formats.openpgp import PublicKey
from speechproc.schema import Bool, Int, Num, Setting, Str

CONTRACTS = ("v3", "v2-beta")
MAX_CALLBACK_BODY_BYTES = 2**30


@dataclass(frozen=True, kw_only=True)
class CallbackOptions:
    """The configured callbacks (v3 `publish.callbacks`) and the local rules for sending them."""

    callbacks: tuple[CallbackEntry, ...] = ()
    time_to_live: int | None = None  # timeToLiveInSeconds
    language: str = "en-US"  # speechModel.language, for the transcript callbacks' text formats
    encryption: PublicKey | None = None  # bodies encrypted to this key (encryption.publicKeyId)
    allow_http: bool = Setting("allowHttpCallbacks", False, Bool(),
                               "Allow plain http:// callback URLs to hosts other than loopback.").field()
    timeout: float = Setting("callbackTimeoutSeconds", 10, Num(minimum=0.1, maximum=600),
                             "The time one callback attempt may take.").field()
    max_bytes: int = Setting("callbackMaxBodyBytes", 64 * 2**20, Int(minimum=1, maximum=MAX_CALLBACK_BODY_BYTES),
                             "A larger callback body is not sent (the delivery is dead at once).").field()
    contract: str = Setting("callbackContract", "v3", Str(enum=CONTRACTS),
                            "v2-beta sends the old contract to receivers that still expect it.").field()
    file_folder: str | None = Setting("callbackFileFolder", None, Str(non_empty=True),
                                      "The folder (absolute) that file:// callbacks may write under.").field()
    account_id: str | None = Setting("accountId", None, Str(non_empty=True),
                                     "The accountId (a UUID) of analytics callbacks; unset: a local one made once.").field()
    account_name: str = Setting("accountName", "speechproc", Str(non_empty=True, max_len=256),
                                "The accountName of analytics callbacks.").field()
