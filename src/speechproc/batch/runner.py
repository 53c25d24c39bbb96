"""Running a batch: plan → jobs → run_job → record.

Each input is claimed in the catalog (or skipped, as `reuse` decides), planned into a `Job` (output
places checked, their ownership record attached), run by `jobs.run_job`, and its result recorded in the
catalog. One bad input fails its own item only. Items left running by a killed process are failed first."""
from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, cast

from speechproc import errors as E
from speechproc import results
from speechproc.batch import distributed, jobs, reuse
from speechproc.batch.jobs import Job, JobEvents, JobResult, as_error
from speechproc.batch.outcome import BatchResult, Interrupted, ItemResult, Reporter
from speechproc.batch.planning import (
    Input,
    by_priority,
    discover,
    new_job,
    out_folder,
    output_paths,
    same_input_as,
    unreadable,
)
from speechproc.batch.publishing import redacted_audio_path
from speechproc.batch.workers import Engine, Finished, InProcess, LocalPool, plan_workers
from speechproc.concurrency import started_up, traced
from speechproc.config import item_metadata
from speechproc.config import v3 as config_module
from speechproc.config.options import build as build_options
from speechproc.config.options import callback_options, download_options, encryption_options
from speechproc.config.resolving import resolve
from speechproc.config.v3 import Settings
from speechproc.conversation import MediaFacts
from speechproc.delivery import outbox
from speechproc.download import DownloadOptions, Fetched
from speechproc.errors import ErrorBody, body_of
from speechproc.formats import openpgp, v3json
from speechproc.paths import absolute, printable, shown
from speechproc.report import writing as reporting
from speechproc.stages.call_insights import memory as insights_memory
from speechproc.stages.options import Options, with_threads
from speechproc.stages.pipeline import new_tasks, preflight
from speechproc.store.database import Catalog, MediaRow
from speechproc.store.files import intents, ownership
from speechproc.store.media_items import retention, using
from speechproc.store.registered import keys
from speechproc.urls import looks_like_url


@dataclass(frozen=True, kw_only=True)
class RunOptions:
    """How one batch runs (the options of `speechproc run`)."""

    metadata: dict[str, Any] = field(default_factory=dict)  # every recording's metadata (--metadata)
    metadata_csv: str | Path | None = None  # a manifest with a row of metadata per recording
    out_dir: str | Path | None = None  # where the outputs go; None: beside each recording
    force: bool = False  # process unchanged recordings again
    report: bool = False  # also write each item's HTML call report
    rttm: bool = False  # also write who spoke when as RTTM
    deliver: bool = True  # send the callbacks that are due at the end
    workers: int | None = 1  # jobs at once; None: as `workers.plan_workers` decides
    engine: str = "local"  # local or ray
    ray_address: str | None = None  # the Ray cluster; None: a local one


def process(paths: list[str | Path], settings: Settings, run: RunOptions | None = None, *,
            reporter: Reporter | None = None, catalog: Catalog | None = None) -> BatchResult:
    """Process every recording under `paths`; each becomes a media item in the catalog. At the end the
    callbacks that are due (these items' and earlier ones') are sent, unless `deliver` is False.

    Paths (and `out_dir`) are made absolute first, so the catalog holds absolute paths. Items that an
    earlier run on this host left `running` when its process stopped are marked failed first. Each input
    is claimed in the catalog just before its job starts: one that a live overlapping run is processing
    now, with the same content and configuration, is skipped. Whatever goes wrong with one input fails
    that item only. `run.workers`: how many jobs run at once, each in a worker process of its own when more
    than one (None: as `workers.plan_workers` decides from the cores and memory); results are the same.
    `engine` "ray" runs the jobs on the Ray cluster at `ray_address` (None: a local one), `workers` actors
    (None: one per `speechproc.threads` CPUs of the cluster, default 1 thread each). Each recording's
    metadata is `metadata`, then its row of the `metadata_csv` manifest, then its sidecar file
    (`item_metadata`), all read and validated before any audio is (ConfigurationError). `report`: write
    each item's HTML call report too; an unchanged item that is skipped gets it from its stored result."""
    started_up()
    run = run or RunOptions()
    reporter = reporter or Reporter()
    out = out_folder(run.out_dir, paths)  # and every URL parsed, before anything is done
    with using(catalog) as cat:
        settings = resolve(settings, cat)
        preflight(build_options(settings))  # a model the run needs is missing or a server is down: refused now
        _fail_abandoned(cat, reporter)
        inputs, problems = discover([p if isinstance(p, str) and looks_like_url(p) else absolute(p) for p in paths],
                                    reporter.note)
        metadata_of = _metadata_of(inputs, run.metadata, run.metadata_csv, reporter)
        # an input that cannot be read at all (missing, a looping link) fails with no output files
        options = build_options(settings)
        names = output_paths([i for i in inputs if i.remote or unreadable(i.path) is None], out, run.report,
                             options.insights.requested, run.rttm)
        pool: Engine
        if run.engine == "ray":
            threads = settings.local("threads") or 1
            options = with_threads(options, threads)
            pool = distributed.RayPool(run.ray_address, run.workers, threads)
        else:
            count, threads = plan_workers(run.workers, len(inputs), settings.local("threads"),
                                          extra_memory=insights_memory(options.insights))
            if count > 1:
                options = with_threads(options, threads)
            pool = InProcess() if count == 1 else LocalPool(count, threads, shared=options)
        batch = _Batch(settings, options, metadata_of, out, run.force, cat, reporter, names, download_options(settings))
        reporter.batch_started(inputs)
        try:
            results = batch.run(inputs, pool)
        except Interrupted as stopped:
            stopped.problems = problems
            raise
        finally:
            pool.close()
        if run.deliver:
            with traced("deliver"):
                _deliver(cat, settings, reporter)
    return BatchResult(results, problems)


NOTED_UNMATCHED = 10  # manifest rows naming no recording of the run that are named on stderr


def _metadata_of(inputs: list[Input], default: dict[str, Any], manifest_path: str | Path | None,
                 reporter: Reporter) -> dict[Path | str, dict[str, Any]]:
    """Every input's metadata, read and validated before any audio is; manifest rows naming no input noted."""
    manifest = item_metadata.read_manifest(Path(manifest_path)) if manifest_path is not None else {}
    recordings = [i.key for i in inputs]
    unmatched = item_metadata.unmatched(recordings, manifest)
    named = shown(Path(manifest_path)) if manifest_path is not None else ""  # rows come from a manifest only
    for path in unmatched[:NOTED_UNMATCHED]:
        reporter.note(f"{named}: a row names {item_metadata.shown_recording(path)}, which is not among the recordings")
    if len(unmatched) > NOTED_UNMATCHED:
        reporter.note(f"{named}: {len(unmatched) - NOTED_UNMATCHED} more rows name files that "
                      "are not among the recordings")
    return item_metadata.for_inputs(recordings, default, manifest)


@dataclass
class _Batch:
    """One run over its inputs: what every item shares, and the loop that keeps the engine busy."""

    settings: Settings
    options: Options
    metadata_of: dict[Path | str, dict[str, Any]]  # input (`Input.key`) -> its metadata
    out: Path | None
    force: bool
    catalog: Catalog
    reporter: Reporter
    names: dict[Path | str, dict[str, Path]]  # input (`Input.key`) -> its output files
    download: DownloadOptions
    first_of: dict[Any, Input] = field(default_factory=dict)  # (device, inode) or URL -> first input naming it
    downloads: dict[str, Fetched] = field(default_factory=dict)  # media id -> its URL's download, until recorded

    def run(self, inputs: list[Input], engine: Engine) -> list[ItemResult]:
        """Every input's result, in input order: jobs started as the engine has room, recorded as they end.
        Ctrl-C stops the jobs running, records them failed, and goes on up."""
        results: list[ItemResult | None] = [None] * len(inputs)
        recorder = Recorder(self.catalog, self.reporter)
        waiting = iter(by_priority(list(enumerate(inputs)), lambda _: self.settings.priority))
        try:
            while True:
                while engine.free() and (nxt := next(waiting, None)) is not None:
                    index, inp = nxt
                    self.reporter.item_started(inp)
                    with traced("prepare a job"):
                        prepared = self.prepare(inp)
                    if isinstance(prepared, Job):
                        engine.submit(index, prepared)
                    else:
                        results[index] = prepared
                        self.reporter.item_done(prepared)
                if not engine.busy():
                    break
                stop = False
                for finished in engine.wait(recorder):
                    with traced("record a job"):
                        done = self.finish(finished, inputs[finished.index])
                    results[finished.index] = done
                    self.reporter.item_done(done)
                    stop = stop or bool(finished.result and finished.result.interrupted)
                if stop:
                    raise KeyboardInterrupt
        except KeyboardInterrupt:
            for finished in engine.interrupt(recorder):
                results[finished.index] = self.finish(finished, inputs[finished.index])
            handled = [r for r in results if r is not None]
            raise Interrupted(handled, len(inputs) - len(handled)) from None
        finally:
            for fetched in self.downloads.values():
                fetched.discard()
        return [r for r in results if r is not None]

    def prepare(self, inp: Input) -> Job | ItemResult:
        """Claim one input and plan its job; or the result of an input that is not processed (skipped,
        the same file again, unreadable, an output place that is not speechproc's). A URL is downloaded
        first (`reuse.fetch_unless_unchanged`); its download is removed when its job is recorded."""
        same = same_input_as(inp, self.first_of)
        if same is not None:
            self.reporter.note(f"{inp.shown}: the same {'URL' if inp.remote else 'file'} as {same.shown}, processed once")
            return ItemResult(inp.identity, None, "skipped")
        path = inp.identity
        media_id, created = str(uuid.uuid4()), v3json.utc_now()
        metadata = self.metadata_of[inp.key]
        config_hash = reuse.settings_key(self.settings, metadata, self.out)
        item = MediaFacts(media_id, "running", created, metadata=metadata)
        job = got = None
        try:
            if inp.remote is None:
                problem = unreadable(inp.path)
                content_hash = None if problem else reuse.content_key(inp.path)
            else:
                got = reuse.fetch_unless_unchanged(inp.remote, self.catalog, config_hash, self.force, self.download)
                problem, content_hash = got.problem, got.fetched.sha256 if got.fetched else None
            reusable = None if self.force else reuse.still_there
            claimed = openpgp.catalog_item(v3json.media_item(item), self.settings.public_key)
            state, row = (("finished", got.earlier) if got is not None and got.earlier is not None else
                          self.catalog.media.claim(claimed, path, content_hash, config_hash, new_tasks(media_id),
                                                   self.settings.raw, reusable, got.source if got is not None else None))
            if state != "claimed":
                assert row is not None  # the finished item, or the one being processed elsewhere
                if state == "finished" and "report" in self.names.get(inp.key, {}):
                    row = _of_skipped(reporting.report_of_unchanged, "report", row, self.catalog, self.reporter)
                if state == "finished" and "rttm" in self.names.get(inp.key, {}):
                    row = _of_skipped(reporting.rttm_of_unchanged, "RTTM", row, self.catalog, self.reporter)
                return _skipped(inp, state, row, self.reporter)
            outputs = {} if problem else self.names.get(inp.key, {})
            if self.settings.public_key is not None:  # every file of an encrypted item is written as NAME.gpg
                outputs = {k: openpgp.sealed_name(v) for k, v in outputs.items()}
                if outputs and encryption_options(self.settings).original:
                    named = Path(inp.remote.name) if inp.remote is not None else inp.path  # not the download's name
                    outputs["original-encrypted"] = openpgp.original_copy(outputs["json"], named)
            job = new_job(item, self.settings, self.options, input=got.fetched.path if got and got.fetched else inp.path,
                          outputs=outputs, content_hash=content_hash, config_hash=config_hash,
                          source=inp.remote.public if inp.remote else None)
            if got is not None and got.fetched is not None:
                self.downloads[media_id], got.fetched = got.fetched, None
            if problem:
                raise problem
            return plan(job, self.settings, self.catalog)
        except KeyboardInterrupt:
            if job is not None:
                record(jobs.fail(job, E.SpeechprocError(E.INTERNAL, jobs.INTERRUPTED, 500), interrupted=True),
                       self.settings, self.catalog)
            raise
        except Exception as exc:
            if job is None:  # not claimed: nothing in the catalog to mark
                return ItemResult(path, None, "failed", error=body_of(as_error(exc)))
            return self.finish(Finished(-1, job, jobs.fail(_with_ownership(job, self.catalog), as_error(exc))), inp)
        finally:
            if got is not None and got.fetched is not None:  # not claimed: the download goes at once
                got.fetched.discard()

    def finish(self, finished: Finished, inp: Input) -> ItemResult:
        """Record a job that ended (one whose worker died, or that Ctrl-C stopped unanswered, fails)."""
        result = finished.result
        if result is None:
            interrupted = finished.died == jobs.INTERRUPTED
            error = E.SpeechprocError(E.INTERNAL, finished.died or jobs.INTERRUPTED, 500)
            result = jobs.fail(_with_ownership(finished.job, self.catalog), error, interrupted=interrupted)
        recorded = record(result, self.settings, self.catalog)
        if (fetched := self.downloads.pop(finished.job.media_id, None)) is not None:
            fetched.discard()
        error_body = cast("ErrorBody | None", recorded.error)  # `E.SpeechprocError.body()` of the failure
        return ItemResult(inp.identity, recorded.media_id, recorded.status, recorded.outputs, error_body,
                          recorded.length_ms)


INTERRUPTED = "interrupted: the process handling it stopped"


def _fail_abandoned(catalog: Catalog, reporter: Reporter) -> None:
    """Mark failed the items whose process stopped (killed, or the machine restarted) while they were
    unfinished; their unfinished tasks become failed (started) or cancelled (pending)."""
    try:
        abandoned = catalog.media.abandoned()
    except Exception as exc:  # never a reason not to process this run's files
        reporter.note(f"could not look for interrupted items ({type(exc).__name__}: {exc})")
        return
    for row in abandoned:
        tasks = [{**t, "status": {"pending": "cancelled", "started": "failed"}.get(t["status"], t["status"])}
                 for t in row["tasks"]]
        stored: results.MediaItem = row["item"]
        body: results.MediaItem = {**stored, "status": "failed", "dateFinished": v3json.utc_now(),
                                   "errors": [{"code": E.INTERNAL, "error": INTERRUPTED}]}
        if not catalog.media.update(row["media_id"], item=body, tasks=tasks, only_if_status=row["status"]):
            continue  # an overlapping run marked it first
        reporter.note(f"{row['input_path']}: media {row['media_id']} was {INTERRUPTED}; marked failed")
        try:
            configured = config_module.validate(row["configuration"])
            configured = replace(configured, public_key=keys.resolve(keys.configured_key_id(configured.raw), catalog))
            outbox.enqueue(catalog, body, callback_options(configured), {})
        except Exception as exc:  # a configuration this version no longer accepts: no callbacks for it
            reporter.note(f"media {row['media_id']}: callbacks not queued ({type(exc).__name__}: {exc})")


def _deliver(catalog: Catalog, settings: Settings, reporter: Reporter) -> None:
    """Send the callbacks that are due; a failure to do so is a note, never the end of the batch."""
    try:
        sent = outbox.deliver_due(catalog, callback_options(settings))
    except Exception as exc:
        reporter.note(f"callbacks: not sent this time ({type(exc).__name__}: {exc}); speechproc callbacks deliver "
                      "retries them")
        return
    if any(sent.values()):
        reporter.note(f"callbacks: {sent['delivered']} delivered, {sent['pending']} to retry later "
                      f"(speechproc callbacks deliver), {sent['dead']} given up")


def plan(job: Job, settings: Settings, catalog: Catalog) -> Job:
    """The job with its redacted-audio place and the ownership record of its output places; raise
    ownership.OutputConflict, before any audio is processed, when one of them may not be written."""
    redacted = redacted_audio_path(job.outputs, Path(job.source) if job.source else job.input,
                                   job.options.detect.redacts_audio, settings.redacted_audio_format)
    ownership.check([*job.outputs.values(), redacted], catalog.written)
    return _with_ownership(replace(job, redacted_audio=redacted), catalog)


def _with_ownership(job: Job, catalog: Catalog) -> Job:
    targets = [*job.outputs.values(), job.redacted_audio]
    return replace(job, ownership=ownership.Ledger.of(targets, catalog.written).known)


class Recorder(JobEvents):
    """Records a running job's progress in the catalog as it goes (tasks, and each output before it is
    put in place), and passes the recognised seconds to the reporter. An output a worker tells of is
    recorded the moment the message comes, and the intent the worker left for it is removed then."""

    durable = True

    def __init__(self, catalog: Catalog, reporter: Reporter | None = None) -> None:
        self.catalog, self.reporter = catalog, reporter or Reporter()

    def stage(self, media_id: str, tasks: list[dict[str, Any]]) -> None:
        self.catalog.media.update(media_id, tasks=tasks)

    def seconds(self, media_id: str, seconds: float) -> None:
        self.reporter.audio_seconds(seconds, media_id)

    def output(self, path: str, sha256: str, media_id: str | None) -> None:
        self.catalog.written.record_output(path, sha256, media_id)
        intents.settle(Path(path), sha256)


def record(result: JobResult, settings: Settings, catalog: Catalog) -> JobResult:
    """Put a job's result into the catalog: the ownership record, the item, its tasks and outputs, the
    analytic index entry, its callbacks. Should that fail, the item is marked failed in the catalog alone
    and the returned result says why."""
    try:
        ownership.replay(result.ownership, catalog.written)
        stored = openpgp.catalog_item(result.item, settings.public_key)  # no results of an encrypted item
        catalog.media.update(result.media_id, item=stored, tasks=result.tasks, outputs=result.outputs)
        if result.index is not None and settings.public_key is None:
            catalog.index.put(result.media_id, **result.index)
        retention.record(catalog, result.media_id, result.item, searchable=settings.searchable)
        outbox.enqueue(catalog, result.item, callback_options(settings), result.streams)
        return result
    except Exception as exc:
        error = as_error(exc)
        first = result.error or error.body()
        body: results.MediaItem = {
            **openpgp.catalog_item(result.item, settings.public_key), "status": "failed", "dateFinished": v3json.utc_now(),
            "errors": [*result.item.get("errors", []),
                       {"code": E.INTERNAL, "error": printable(f"while recording the result: {error.message}")}]}
        try:
            catalog.media.update(result.media_id, item=body, only_if_status="running")
        except Exception:  # the catalog itself fails: a later run finds the item abandoned and fails it
            pass
        return replace(result, status="failed", item=body, error=first)


def _of_skipped(write: Callable[[MediaRow, Catalog], MediaRow], what: str, row: MediaRow, catalog: Catalog,
                reporter: Reporter) -> MediaRow:
    """An output of an unchanged item asked for in this run, written from its stored result by `write`
    (`reporting.report_of_unchanged`, `rttm_of_unchanged`); a failure to write it is a note: the item stays
    as it was."""
    try:
        return write(row, catalog)
    except E.SpeechprocError as exc:
        reporter.note(f"media {row['media_id']}: {what} not written ({exc.message})")
    except Exception as exc:
        reporter.note(f"media {row['media_id']}: {what} not written ({type(exc).__name__}: {exc})")
    return row


def _skipped(inp: Input, state: str, row: MediaRow, reporter: Reporter) -> ItemResult:
    """The result for an input not processed: unchanged since a finished item, or being processed elsewhere."""
    if state == "finished":
        reporter.note(f"{inp.shown}: unchanged since media {row['media_id']}, skipped (--force redoes it)")
        return ItemResult(inp.identity, row["media_id"], "skipped", row["outputs"], length_ms=row["item"].get("length", 0))
    owner = row["owner"]
    reporter.note(f"{inp.shown}: being processed by another run (pid {owner['pid']} on {owner['host']}) as "
                  f"media {row['media_id']}, skipped")
    return ItemResult(inp.identity, row["media_id"], "skipped")


