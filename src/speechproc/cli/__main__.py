"""`python -m speechproc.cli`: the command line."""
from speechproc.cli.commands import entry

entry()
