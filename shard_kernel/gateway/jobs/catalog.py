"""JobCatalog: subagent jobs durable under `SHARD_HOME/jobs/<job_id>/manifest.json`.

Each save replaces the file atomically (temp file, fsync, rename), so a crash leaves the old
record or the new one. Loading after a gateway restart marks every run that was queued or
running `interrupted`, with the reason, since the child's prompt may have had side effects
and is never replayed on its own; the parent may relaunch it.
"""

from __future__ import annotations

import logging
import re
import time
from pathlib import Path

from pydantic import ValidationError

from shard_core.engine.state import private_dir, write_private
from shard_kernel.gateway.jobs.records import JobRecord

MANIFEST = "manifest.json"
JOB_ID = re.compile(r"job-[0-9a-f]{1,64}")
RESTART_REASON = "the gateway restarted while this run was {state}; relaunch it to run it again"


class JobCatalog:
    def __init__(self, home: Path, log: logging.Logger) -> None:
        self.root = home / "jobs"
        self.log = log
        self.jobs: dict[str, JobRecord] = {}

    def path(self, job_id: str) -> Path:
        if not JOB_ID.fullmatch(job_id):
            raise ValueError(f"not a job id: {job_id!r}")
        return self.root / job_id / MANIFEST

    def save(self, job: JobRecord) -> None:
        private_dir(self.root)
        data = job.model_dump_json(indent=2) + "\n"
        write_private(self.path(job.id), data.encode("utf-8"))
        self.jobs[job.id] = job

    def get(self, job_id: str) -> JobRecord | None:
        return self.jobs.get(job_id)

    def load(self) -> list[JobRecord]:
        """Read every job; the ones a restart cut short become interrupted (and are saved)."""
        if self.root.is_dir():
            for path in sorted(self.root.glob(f"job-*/{MANIFEST}")):
                job = self._read(path)
                if job is not None:
                    self.jobs[job.id] = job
        cut = [job for job in self.jobs.values() if not job.terminal]
        for job in cut:
            self._interrupt(job)
        return cut

    def _interrupt(self, job: JobRecord) -> None:
        now = time.time()
        for run in job.runs:
            if not run.terminal:
                run.reason = RESTART_REASON.format(state=run.state)
                run.state = "interrupted"
                run.ended = now
        job.state, job.ended = "interrupted", now
        job.reason = "the gateway restarted while the job ran"
        self.save(job)
        self.log.info("shard: job %s interrupted by the gateway restart", job.id)

    def _read(self, path: Path) -> JobRecord | None:
        try:
            job = JobRecord.model_validate_json(path.read_bytes())
        except (OSError, ValidationError) as exc:
            self.log.warning(
                "shard: skipping unreadable job record %s: %s", path, type(exc).__name__
            )
            return None
        if job.id != path.parent.name:
            self.log.warning("shard: skipping %s: it names job %s", path, job.id)
            return None
        return job
