"""The command line: parse, call the library, print JSON, exit 0 (all finished), 1 (some failed), 2 (usage)."""
from __future__ import annotations

import logging
import multiprocessing
import os
import sys
import threading

import click

from speechproc import __version__, api
from speechproc import errors as E
from speechproc.cli import definitions as cli_definitions
from speechproc.cli import doctor as cli_doctor
from speechproc.cli import insights as cli_insights
from speechproc.cli import keys as cli_keys
from speechproc.cli import media as cli_media
from speechproc.cli import speakers as cli_speakers
from speechproc.cli.progress import BarReporter
from speechproc.cli.support import (
    AUTO,
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    TEXT,
    V3Group,
    WorkerCount,
    emit,
    printable,
    v3_errors,
    write_stdout,
)
from speechproc.errors import SpeechprocError


@click.group(cls=V3Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="speechproc")
def main() -> None:
    """Offline speech recognition and call analytics with VoiceBase v3 output.

    \b
    Example:
      speechproc run ./calls --config configs/default.yaml
      speechproc media list --limit 5
      speechproc transcript MEDIA_ID --format srt

    State (the catalog of media items) lives in $SPEECHPROC_HOME, by default the
    platform's user data folder.
    """


@main.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=str))
@click.option("--config", "config_file", type=click.Path(dir_okay=False), help="v3 configuration, JSON or YAML.")
@click.option("--metadata", "metadata_file", type=click.Path(dir_okay=False),
              help="Metadata for every item (title, description, externalId, extended), JSON or YAML: the "
                   "default that a manifest row and a sidecar file (call.meta.json or .yaml beside call.wav) "
                   "override key by key.")
@click.option("--metadata-csv", "metadata_csv", type=click.Path(dir_okay=False), metavar="FILE",
              help="Metadata per recording from a CSV manifest: a 'file' column (relative to FILE's folder, "
                   "absolute, or a URL) and title, description, externalId, externalVersion and extended.NAME "
                   "columns.")
@click.option("--out", "out_dir", type=click.Path(file_okay=False),
              help="Write outputs under DIR, mirroring the input tree; required when a recording is a URL.")
@click.option("--force", is_flag=True, help="Reprocess files even when content and configuration are unchanged.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar or notes on stderr.")
@click.option("--workers", "-w", type=WorkerCount(),
              help="Recordings processed at once, each in a worker that loads the models once: a number, or "
                   "'auto'. Local engine: default 1; auto is one per core, as many as the available memory holds "
                   "at 2 GiB each; never more than there are recordings; recognition threads per worker are "
                   "speechproc.threads, else the cores shared out. Ray engine: default auto, one actor per "
                   "speechproc.threads CPUs of the cluster (1 thread unless set).")
@click.option("--engine", type=click.Choice(["local", "ray"]), default="local", show_default=True,
              help="Where the workers run: processes on this machine, or actors on a Ray cluster (needs "
                   "pip install 'speechproc[ray]'; inputs and outputs on storage every node sees at the same "
                   "paths).")
@click.option("--report", "with_report", is_flag=True,
              help="Also write each item's HTML call report, NAME.report.html, beside its other outputs (see "
                   "`speechproc report`); an unchanged item that is skipped gets one from its stored result.")
@click.option("--rttm", "with_rttm", is_flag=True,
              help="Also write who spoke when as RTTM, NAME.rttm, beside the other outputs (each speaker's voice "
                   "activity, for diarization scorers such as dscore or pyannote.metrics; speaker names "
                   "percent-encoded); an unchanged item that is skipped gets one from its stored result.")
@click.option("--ray-address", metavar="ADDR", type=TEXT,
              help="With --engine ray: the cluster to join (HOST:PORT of `ray start --head`, or 'auto' for the "
                   "one running on this machine). Without it a local Ray is started for this run.")
@v3_errors
def run(paths: tuple[str, ...], config_file: str | None, metadata_file: str | None, metadata_csv: str | None,
        out_dir: str | None, force: bool, quiet: bool, workers: int | None, engine: str, with_report: bool,
        with_rttm: bool, ray_address: str | None) -> None:
    """Transcribe and analyse recordings: files, folders walked recursively, or http(s) URLs.

    Each recording becomes a media item; its outputs go beside it (call.wav ->
    call.v3.json, call.txt, call.srt, call.vtt, call.dfxp, with --report
    call.report.html, with --rttm call.rttm) or under --out. A URL is downloaded first (its outputs go
    under --out, named after its path; its query string is never shown or kept).
    Recordings whose content and configuration are unchanged since a finished run
    are skipped.
    Prints a JSON summary; exits 0 when every item finished, 1 when any failed,
    2 for a bad configuration or metadata (then nothing is processed).

    \b
    Example:
      speechproc run sample_media/ --config configs/default.yaml --out results/
      speechproc run 'https://host/calls/a.wav?signature=...' --out results/
    """
    if ray_address is not None and engine != "ray":
        raise click.UsageError("--ray-address goes with --engine ray")
    if workers is None:
        workers = 1 if engine == "local" else AUTO
    reporter = BarReporter(quiet)
    try:  # Ray, then the configuration, then the metadata are checked first: exit 2 before anything is done
        batch = api.process(list(paths), config_file, metadata_file, out_dir=out_dir, force=force, reporter=reporter,
                            workers=None if workers == AUTO else workers, engine=engine, ray_address=ray_address,
                            metadata_csv=metadata_csv, report=with_report, rttm=with_rttm)
    except SpeechprocError:
        raise
    except KeyboardInterrupt as exc:
        reporter.close()
        emit_interrupted(exc if isinstance(exc, api.Interrupted) else api.Interrupted([], 0))
        sys.exit(EXIT_INTERRUPTED)
    except Exception as exc:  # not one item's fault (the catalog cannot be opened...): still a JSON answer
        error = E.error_body(500, [(E.INTERNAL, printable(f"{type(exc).__name__}: {exc}"))])
        emit({"media": [], "errors": [error]})
        click.echo(printable(f"error {E.INTERNAL}: {error['errors'][0]['error']}"), err=True)
        sys.exit(EXIT_FAILED)
    finally:
        reporter.close()
    summary = batch.as_json()
    for problem in batch.problems:
        click.echo(printable(f"error: {problem['warnings'][0]['message']}"), err=True)
    emit(summary)
    sys.exit(EXIT_OK if batch.ok else EXIT_FAILED)


def emit_interrupted(stopped: api.Interrupted) -> None:
    """The summary of a batch Ctrl-C stopped: the items handled by then, and an error saying what is left."""
    message = ("interrupted: the recordings being processed are marked failed and their partial outputs removed"
               + (f"; {stopped.not_started} not started" if stopped.not_started else "")
               + "; run the same command again to process what is left")
    try:
        emit({"media": [r.as_json() for r in stopped.items],
              "errors": [*stopped.problems, E.error_body(500, [(E.INTERNAL, message)])]})
    except KeyboardInterrupt:  # a second Ctrl-C while it is written: the message below still says why
        pass
    click.echo(message, err=True)


cli_media.add_commands(main)


@main.command()
@click.argument("media_id", type=TEXT)
@click.option("--format", "fmt", default="json", show_default=True,
              type=click.Choice(["json", *api.TRANSCRIPT_FORMATS, *api.SPEAKER_FORMATS]),
              help="Output format: the v3 JSON, a caption or text format, or rttm (who spoke when, for "
                   "diarization scorers).")
@click.option("--include-alternate-format", "include", multiple=True, type=click.Choice(list(api.TRANSCRIPT_FORMATS)),
              help="With --format json: add this format, Base64 encoded (repeatable).")
@v3_errors
def transcript(media_id: str, fmt: str, include: tuple[str, ...]) -> None:
    """Print the transcript of a finished media item.

    A media item that is not finished answers with the v3 404 body and exit 1.

    \b
    Example:
      speechproc transcript 6f1c...-... --format srt
      speechproc transcript 6f1c...-... --include-alternate-format webvtt
      speechproc transcript 6f1c...-... --format rttm > call.rttm
    """
    if include and fmt != "json":
        raise click.UsageError("--include-alternate-format goes with --format json")
    result = api.get_transcript(media_id, fmt, list(include))
    if isinstance(result, str):
        click.echo(result, nl=False)  # exactly the bytes of the file of that format
    else:
        emit(result)


cli_definitions.add_commands(main)
cli_keys.add_commands(main)
cli_speakers.add_commands(main)
cli_doctor.add_commands(main)
cli_insights.add_commands(main)


@main.group("callbacks")
def callbacks_group() -> None:
    """The callback outbox: deliveries waiting for a retry, and those given up."""


@callbacks_group.command("list")
@click.option("--all", "include_delivered", is_flag=True, help="Also list delivered callbacks.")
@v3_errors
def callbacks_list(include_delivered: bool) -> None:
    """List pending and dead callback deliveries (attempts, next attempt, last error).

    \b
    Example:
      speechproc callbacks list
    """
    emit(api.list_callbacks(include_delivered))


@callbacks_group.command("deliver")
@v3_errors
def callbacks_deliver() -> None:
    """Send every callback whose next attempt is due; run it from cron.

    Prints {delivered, pending, dead}: pending ones have a later attempt scheduled
    (rounds of 3 attempts: now, then 15 min, 30 min, 1 h, 2 h, 4 h, 8 h apart);
    dead ones used all 21 attempts.

    \b
    Example:
      */5 * * * *  speechproc callbacks deliver
    """
    emit(api.deliver_callbacks())


@main.command("query")
@click.argument("statement", type=TEXT)
@v3_errors
def query_command(statement: str) -> None:
    """Run a query over every media item processed with publish.enableAnalyticIndexing.

    Prints {totalResults, queryTimeMillis, limit, offset, rows, hits}: one row per
    matching media item (newest first unless ORDER BY says otherwise), and for each
    row the hits (startMs, endMs, startRatio, line, speaker, text) when hits() is
    selected. A syntax error says where it is; exit 2.

    \b
    Example:
      speechproc query 'SELECT mediaId, hits() FROM media WHERE "Agent" SAYS "refund*" LIMIT 20'
    """
    emit(api.query(statement))


@main.command("export")
@click.option("--format", "fmt", type=click.Choice(api.EXPORT_FORMATS), default="csv", show_default=True,
              help="csv (spreadsheets, pandas.read_csv), jsonl (one JSON object per line) or parquet (needs -o).")
@click.option("--query", type=TEXT, metavar="STATEMENT",
              help="Only the items a `speechproc query` statement selects, in its order (items processed "
                   "with publish.enableAnalyticIndexing); default: every item of the catalog, oldest first.")
@click.option("-o", "--output", type=click.Path(dir_okay=False), metavar="FILE",
              help="Write FILE (atomically; a file speechproc did not write is never replaced) and print a "
                   "summary; default: the table on stdout.")
@v3_errors
def export_command(fmt: str, query: str | None, output: str | None) -> None:
    """Export one row per media item: mediaId, input, status, dates, length, the metadata flattened
    (title, description, externalId, extended.*), every metric (metric.*), each category (category.*,
    1 or 0), spotted keyword groups (spotted.*, 1 or 0), detection counts (detections.*),
    classifier labels (classifier.*) and call insights (insights.reason, insights.outcome,
    insights.summary, insights.actionItems, insights.answer.*).

    \b
    Examples:
      speechproc export -o calls.csv
      speechproc export --format parquet -o calls.parquet
      speechproc export --format jsonl --query 'SELECT * FROM media WHERE "Caller" SAYS "refund"'
    """
    text, summary = api.export(fmt, query, output)
    if text is None:
        emit(summary)
    else:
        write_stdout(text)


@main.command("report")
@click.argument("target", required=False, type=click.Path(path_type=str), metavar="[MEDIA_ID|FILE.v3.json]")
@click.option("-o", "--output", type=click.Path(dir_okay=False), metavar="FILE",
              help="Write FILE (atomically; a file speechproc did not write is never replaced); '-' prints the "
                   "page. Default: NAME.report.html beside the item's .v3.json (else MEDIA_ID.report.html "
                   "here); corpus.html for --corpus.")
@click.option("--corpus", is_flag=True, help="Report on many items instead of one: the whole catalog, or --query's.")
@click.option("--query", type=TEXT, metavar="STATEMENT",
              help="With --corpus: only the items a `speechproc query` statement selects (items processed with "
                   "publish.enableAnalyticIndexing).")
@click.option("--date-field", type=TEXT, metavar="FIELD",
              help="With --corpus: the date the trend is drawn over: dateCreated (default), dateFinished or a "
                   "metadata field holding an ISO 8601 date, such as extended.callDate.")
@v3_errors
def report_command(target: str | None, output: str | None, corpus: bool, query: str | None,
                   date_field: str | None) -> None:
    """Write an HTML report that opens offline: one call's, or a whole corpus's.

    A call report shows the speakers' turns on a timeline (overtalk, silences over 4 s, detections),
    sentence sentiment over time, the metrics by group, keywords and topics, categories and keyword
    groups with links to each match in the transcript, detections, and the transcript; with the
    recording reachable from the report's folder, a player that a click on a word starts from there.
    A corpus report shows counts and durations, the distribution of the main metrics, category and
    keyword-group hit rates, and their trend over time. Prints a JSON summary.

    \b
    Examples:
      speechproc report calls/call.v3.json
      speechproc report MEDIA_ID -o call.html
      speechproc report --corpus -o corpus.html
      speechproc report --corpus --date-field extended.callDate \\
          --query 'SELECT * FROM media WHERE "Caller" SAYS "cancel*"' -o cancellations.html
    """
    if corpus == (target is not None):
        raise click.UsageError("give a MEDIA_ID or FILE.v3.json, or --corpus (one of them)")
    if not corpus and (query is not None or date_field is not None):
        raise click.UsageError("--query and --date-field go with --corpus")
    text, summary = api.report(target, output, query=query, date_field=date_field)  # no target: the corpus
    if text is None:
        emit(summary)
    else:
        write_stdout(text)


def entry() -> None:
    """The `speechproc` console script: the command, then a quick exit.

    Once a command has written everything and flushed its output, the interpreter's teardown of the
    loaded models (torch, spaCy, the sentence encoder) would take another 1-2 s, on every call from cron
    or CI. Leave without it, unless a worker process or a thread that is not a daemon is still alive.
    """
    try:
        main()
        code: int = EXIT_OK
    except SystemExit as exc:
        if exc.code is None or isinstance(exc.code, int):
            code = exc.code or EXIT_OK
        else:  # sys.exit("message"): the message on stderr, exit 1
            print(exc.code, file=sys.stderr)
            code = EXIT_FAILED
    if multiprocessing.active_children() or any(not t.daemon for t in threading.enumerate()
                                                 if t is not threading.main_thread()):
        sys.exit(code)
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except OSError:  # a reader that went away (`| head`): nothing more can reach it
            pass
    os._exit(code)


if __name__ == "__main__":
    entry()
