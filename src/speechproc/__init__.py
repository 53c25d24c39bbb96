"""speechproc: offline speech recognition and call analytics with VoiceBase v3 output."""

__version__ = "0.2.0"
FORMAT_VERSION = "3.0.11"  # version of the v3 payload format we write
