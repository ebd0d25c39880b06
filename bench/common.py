"""Shared pieces of the benchmarks: statistics, the printed/JSON figure, the workspace
with cached generated fixtures, and the machine description.

Every benchmark module exposes ``NAME``, ``DESCRIPTION`` and ``run(ctx) -> list[Figure]``.
A :class:`Figure` is one measured quantity with its median and p95 over repeated runs,
the baseline measured in the same run (and the ratio to it) and, when the issue sets
one, the target and whether it is met. Benchmarks print as they go; nothing here asserts
a time.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from bench.generate import FULL, QUICK, Size, StepClock, populate_store, write_project

__all__ = ["Context", "Figure", "Stats", "machine", "p95", "stats", "timed"]


def p95(samples: Sequence[float]) -> float:
    """95th percentile, nearest-rank (the value 95% of samples are at or below)."""
    if not samples:
        return float("nan")
    ordered = sorted(samples)
    rank = max(1, -(-95 * len(ordered) // 100))  # ceil(0.95 n)
    return ordered[rank - 1]


@dataclass(frozen=True)
class Stats:
    median: float
    p95: float
    n: int
    min: float
    max: float


def stats(samples: Sequence[float]) -> Stats:
    return Stats(statistics.median(samples), p95(samples), len(samples), min(samples), max(samples))


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    """(seconds, result) of one call."""
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


@dataclass
class Figure:
    """One measured quantity. ``unit`` of median/p95 (``ms``, ``s``, ``MB``, ``req/s``,
    ``x``, ``count``). ``baseline``: what the ratio is taken against (measured in the same
    run). ``target``: the issue's target in words; ``met``: True/False/None (no target)."""

    bench: str
    metric: str
    median: float | None
    p95: float | None
    unit: str
    n: int = 0
    baseline: str = ""
    baseline_median: float | None = None
    ratio: float | None = None
    target: str = ""
    met: bool | None = None
    note: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def line(self) -> str:
        def num(x: float | None) -> str:
            if x is None:
                return "-"
            if abs(x) >= 100:
                return f"{x:,.0f}"
            if abs(x) >= 10:
                return f"{x:.1f}"
            return f"{x:.3g}" if abs(x) < 1 else f"{x:.2f}"

        parts = [f"[{self.bench}] {self.metric}:"]
        if self.median is not None:
            parts.append(f"median {num(self.median)} {self.unit}")
        if self.p95 is not None:
            parts.append(f"p95 {num(self.p95)} {self.unit}")
        if self.n:
            parts.append(f"(n={self.n})")
        if self.baseline:
            base = f"| baseline {self.baseline}"
            if self.baseline_median is not None:
                base += f": median {num(self.baseline_median)} {self.unit}"
            if self.ratio is not None:
                base += f", ratio {self.ratio:.2f}x"
            parts.append(base)
        if self.target:
            verdict = {True: "MET", False: "MISSED", None: "n/a"}[self.met]
            parts.append(f"| target {self.target}: {verdict}")
        if self.note:
            parts.append(f"| {self.note}")
        return " ".join(parts)


def ms(seconds: Sequence[float]) -> list[float]:
    return [s * 1000.0 for s in seconds]


def ratio(a: float | None, b: float | None) -> float | None:
    if a is None or b is None or b <= 0:
        return None
    return a / b


# --- the workspace ---------------------------------------------------------------------


def _default_dir() -> Path:
    return Path(os.environ.get("ETKI_BENCH_DIR") or "/tmp/etki-bench")


def settle_disk() -> None:
    """Flush every dirty page of the machine before a timed round, so each round starts
    from the same disk state (:mod:`bench.wiki_rebuild`, :mod:`bench.hitl`). Without it
    the rebuild's floor, timed right after a rebuild had flushed its own pages, wrote
    63 MB into a clean page cache (0.3-0.4 s) while the rebuild was timed after the
    floor's unflushed 63 MB (stop 27: the same floor loop took 2.0-2.7 s when it too
    started after a flush); the ratio measured the order of the rounds."""
    if hasattr(os, "sync"):
        os.sync()


class Context:
    """What a benchmark run shares: ``quick``, the workspace folder (fixtures are cached
    there by :meth:`Size.key`, so repeated runs and several benchmarks reuse one
    generated store), ``emit`` to print and collect figures, and ``log`` for progress."""

    def __init__(self, *, quick: bool, workdir: Path | None = None, verbose: bool = True) -> None:
        self.quick = quick
        self.base = (workdir or _default_dir()) / ("quick" if quick else "full")
        self.base.mkdir(parents=True, exist_ok=True)
        self.figures: list[Figure] = []
        self.verbose = verbose

    @property
    def size(self) -> Size:
        return QUICK if self.quick else FULL

    def log(self, text: str) -> None:
        if self.verbose:
            print(f"    … {text}", flush=True)

    def emit(self, fig: Figure) -> Figure:
        self.figures.append(fig)
        print(fig.line(), flush=True)
        return fig

    def scratch(self, name: str) -> Path:
        """A fresh empty folder ``<workspace>/scratch/<name>``."""
        path = self.base / "scratch" / name
        if path.exists():
            shutil.rmtree(path)
        path.mkdir(parents=True)
        return path

    # fixtures
    def project_folder(self, size: Size) -> Path:
        """The project folder of ``size`` (written once, then reused)."""
        folder = self.base / "projects" / size.key()
        done = folder / ".complete"
        if not done.exists():
            if folder.exists():
                shutil.rmtree(folder)
            t = time.perf_counter()
            write_project(folder, size)
            done.write_text("ok\n")
            self.log(f"generated project folder {size.key()} in {time.perf_counter() - t:.1f} s")
        return folder

    def store(self, size: Size) -> Path:
        """A SQLite store file holding the project of ``size`` and its cases (the first
        ``size.ruled`` ruled), built once through the repository and reused (brought to
        the head revision first: read commands refuse a store a migration is due on).
        Callers that write must :meth:`copy_store` first."""
        from etki.store import CaseFileRepository

        path = self.base / "stores" / f"{size.key()}.db"
        if not path.exists():
            folder = self.project_folder(size)
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(".building")
            for p in tmp.parent.glob(tmp.name + "*"):
                p.unlink()
            t = time.perf_counter()
            repo = CaseFileRepository(f"sqlite:///{tmp}", clock=StepClock())
            counts = populate_store(
                repo, folder, size, progress=lambda n, m: self.log(f"ruled {n}/{m}")
            )
            repo.dispose()
            for suffix in ("-wal", "-shm"):
                extra = Path(str(tmp) + suffix)
                if extra.exists():
                    extra.unlink()
            tmp.rename(path)
            self.log(f"built store {size.key()} ({counts}) in {time.perf_counter() - t:.1f} s")
        else:  # a store cached by an older Etki: migrated to the head (one read when at it)
            CaseFileRepository(f"sqlite:///{path}").dispose()
        return path

    def copy_store(self, size: Size, name: str) -> Path:
        src = self.store(size)
        folder = self.scratch(name)
        dst = folder / "etki.db"
        shutil.copyfile(src, dst)
        return dst

    def remember(self, key: str, value: Any) -> Any:
        """Store ``value`` under ``key`` in ``<workspace>/last-run.json`` and return the
        value stored there by the previous run (None the first time)."""
        path = self.base / "last-run.json"
        data = json.loads(path.read_text()) if path.exists() else {}
        old = data.get(key)
        data[key] = value
        path.write_text(json.dumps(data, indent=1, sort_keys=True))
        return old


# --- the machine -----------------------------------------------------------------------


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def loadavg() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "n/a"


def machine() -> dict[str, Any]:
    try:
        import yaml

        libyaml = bool(getattr(yaml, "__with_libyaml__", False))
    except ImportError:  # pragma: no cover
        libyaml = False
    from etki.wiki.search import find_rg

    rg = find_rg()
    rg_version = ""
    if rg:
        import subprocess

        out = subprocess.run([rg, "--version"], capture_output=True, text=True, check=False)
        rg_version = out.stdout.splitlines()[0] if out.stdout else ""
    return {
        "nproc": os.cpu_count(),
        "cpu": cpu_model(),
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "libyaml": libyaml,
        "rg": rg_version,
        "loadavg": loadavg(),
    }


def to_json(figures: Sequence[Figure]) -> list[dict[str, Any]]:
    return [asdict(f) for f in figures]


__all__ += ["Context", "FULL", "QUICK", "Size", "cpu_model", "loadavg", "ms", "ratio", "to_json"]
