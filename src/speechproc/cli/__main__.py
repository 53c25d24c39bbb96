"""`python -m speechproc.cli`: the command line."""
from speechproc.cli import entry

entry()
