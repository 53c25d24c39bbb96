"""The configuration: the v3 configuration read and validated (`v3`), its effective settings (`settings`),
each stage's options built from them (`options`), and each recording's own metadata (`item_metadata`)."""
from speechproc.config.settings import Settings
from speechproc.config.v3 import load, load_metadata, read_document, validate, validate_metadata

__all__ = ["Settings", "load", "load_metadata", "read_document", "validate", "validate_metadata"]
