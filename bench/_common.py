"""Shared timing helpers for the benchmark scripts in ``bench/``.

Benchmarks are scripts, never tests: they print numbers and a verdict, they do
not assert. Every comparison runs its variants side by side in one process,
interleaving the repetitions (and alternating which variant goes first) so
drift — CPU frequency, page cache, a noisy neighbour — hits all variants alike,
then compares medians.

Typical use::

    from _common import compare, temp_dsh_home

    compare("baseline", run_a, "candidate", run_b, reps=7, target=1.03, units=N, unit="turns")

A timed callable returns one of:

* ``None`` — its wall time (``perf_counter``) is the sample;
* a ``float`` — seconds it measured itself (to leave setup and teardown out);
* a mapping with ``"seconds"`` (the primary sample) and any further named
  metrics (e.g. ``"cpu"`` seconds); those are reported with their own medians
  and b/a ratios, without a verdict.
"""

from __future__ import annotations

import gc
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import trio

Timed = Callable[[], "float | Mapping[str, float] | None"]


@dataclass
class Result:
    """Samples (seconds) of one variant."""

    name: str
    samples: list[float] = field(default_factory=list)
    #: further named metrics a timed callable reported, one value per sample
    extra: dict[str, list[float]] = field(default_factory=dict)

    def extra_median(self, key: str) -> float:
        return statistics.median(self.extra[key])

    @property
    def median(self) -> float:
        return statistics.median(self.samples)

    @property
    def spread(self) -> float:
        """(max - min) / median: a rough noise indicator."""
        return (max(self.samples) - min(self.samples)) / self.median if self.median else 0.0


@dataclass
class Comparison:
    a: Result
    b: Result
    #: median(b) / median(a) in time: > 1 means b is slower
    ratio: float
    target: float | None
    higher_is_better: bool

    @property
    def ok(self) -> bool | None:
        if self.target is None:
            return None
        return self.ratio >= self.target if self.higher_is_better else self.ratio <= self.target


def time_once(fn: Timed) -> tuple[float, dict[str, float]]:
    """Run ``fn`` once after a full collection: (primary seconds, extra metrics)."""
    gc.collect()
    start = time.perf_counter()
    own = fn()
    elapsed = time.perf_counter() - start
    if isinstance(own, Mapping):
        extra = {k: float(v) for k, v in own.items() if k != "seconds"}
        return float(own["seconds"]), extra
    if isinstance(own, (int, float)) and not isinstance(own, bool):
        return float(own), {}
    return elapsed, {}


def measure(variants: Sequence[tuple[str, Timed]], *, reps: int = 5, warmup: int = 1) -> list[Result]:
    """Interleaved repetitions of every variant; warm-up runs are discarded.

    Rep ``i`` runs the variants in order, rotated by ``i``, so none is always first.
    """
    results = [Result(name) for name, _ in variants]
    n = len(variants)
    for rep in range(warmup + reps):
        for k in range(n):
            index = (k + rep) % n
            seconds, extra = time_once(variants[index][1])
            if rep >= warmup:
                result = results[index]
                result.samples.append(seconds)
                for key, value in extra.items():
                    result.extra.setdefault(key, []).append(value)
    return results


def fmt_seconds(seconds: float) -> str:
    if seconds >= 1:
        return f"{seconds:.3f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds * 1e6:.1f} us"


def print_results(results: Sequence[Result], *, units: float | None = None, unit: str = "ops") -> None:
    """One line per variant: median seconds, spread and (given ``units``) a rate."""
    width = max(len(r.name) for r in results)
    for r in results:
        spread = f"(spread {r.spread * 100:4.1f}%, n={len(r.samples)})"
        line = f"  {r.name:<{width}}  median {fmt_seconds(r.median):>10}  {spread}"
        if units:
            line += f"  {units / r.median:>12,.1f} {unit}/s"
        for key in r.extra:
            line += f"  {key} {fmt_seconds(r.extra_median(key))}"
        print(line)


def verdict(ratio: float, target: float | None, higher_is_better: bool) -> str:
    if target is None:
        return ""
    sign = ">=" if higher_is_better else "<="
    ok = ratio >= target if higher_is_better else ratio <= target
    return f" (target {sign} {target:g}) {'OK' if ok else 'OVER'}"


def compare_many(
    variants: Sequence[tuple[str, Timed]],
    *,
    baseline: int = 0,
    reps: int = 5,
    warmup: int = 1,
    targets: Mapping[str, float] | None = None,
    higher_is_better: bool = False,
    units: float | None = None,
    unit: str = "ops",
    title: str | None = None,
) -> dict[str, Comparison]:
    """Time every variant interleaved; print medians and each ``ratio v/baseline``.

    ``targets`` maps a variant name to the bound on its time ratio against the
    baseline (``ratio <= target`` passes; with ``higher_is_better``, ``>=``).
    Variants without a target are informational. ``units`` (work items per
    run) adds a rate column. Returns the comparisons by variant name.
    """
    if title:
        print(title)
    results = measure(variants, reps=reps, warmup=warmup)
    print_results(results, units=units, unit=unit)
    base = results[baseline]
    out: dict[str, Comparison] = {}
    for index, result in enumerate(results):
        if index == baseline:
            continue
        target = (targets or {}).get(result.name)
        ratio = result.median / base.median
        paired = statistics.median(y / x for x, y in zip(base.samples, result.samples, strict=True))
        print(
            f"  ratio {result.name}/{base.name} = {ratio:.3f}{verdict(ratio, target, higher_is_better)}"
            f"  [median of per-rep ratios {paired:.3f}]"
        )
        for key in sorted(base.extra.keys() & result.extra.keys()):
            extra_ratio = result.extra_median(key) / base.extra_median(key)
            print(f"  ratio {result.name}/{base.name} ({key}) = {extra_ratio:.3f}")
        out[result.name] = Comparison(
            a=base, b=result, ratio=ratio, target=target, higher_is_better=higher_is_better
        )
    sys.stdout.flush()
    return out


def compare(
    name_a: str,
    fn_a: Timed,
    name_b: str,
    fn_b: Timed,
    *,
    reps: int = 5,
    warmup: int = 1,
    target: float | None = None,
    higher_is_better: bool = False,
    units: float | None = None,
    unit: str = "ops",
    title: str | None = None,
) -> Comparison:
    """Time ``a`` and ``b`` interleaved; print medians and ``ratio b/a`` (time).

    ``target`` bounds the time ratio: ``ratio <= target`` passes, or with
    ``higher_is_better`` (a speed-up is wanted) ``ratio >= target`` passes.
    ``units`` (work items per run) adds a rate column.
    """
    found = compare_many(
        [(name_a, fn_a), (name_b, fn_b)],
        reps=reps,
        warmup=warmup,
        targets=None if target is None else {name_b: target},
        higher_is_better=higher_is_better,
        units=units,
        unit=unit,
        title=title,
    )
    return found[name_b]


def summary(comparisons: Sequence[tuple[str, Comparison]]) -> bool:
    """Print a closing table of every comparison; True when all targets hold."""
    print("\nsummary")
    width = max(len(label) for label, _ in comparisons)
    all_ok = True
    for label, c in comparisons:
        print(f"  {label:<{width}}  ratio {c.ratio:7.3f}{verdict(c.ratio, c.target, c.higher_is_better)}")
        all_ok = all_ok and c.ok is not False
    return all_ok


class TaskClock(trio.abc.Instrument):
    """A trio instrument: CPU seconds spent in the steps of tasks whose name
    starts with ``prefix`` (background work that runs whenever the scheduler
    lets it)."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self.cpu = 0.0
        self._started = 0.0

    def before_task_step(self, task: trio.lowlevel.Task) -> None:
        if task.name.startswith(self.prefix):
            self._started = time.process_time()

    def after_task_step(self, task: trio.lowlevel.Task) -> None:
        if task.name.startswith(self.prefix):
            self.cpu += time.process_time() - self._started


@contextmanager
def temp_dsh_home(prefix: str = "dsh-bench-", parent: str | None = None) -> Iterator[Path]:
    """A throwaway ``<tmp>/home`` exported as ``$DSH_HOME`` for the duration.

    The directory itself is not created (hosts create it privately); its parent
    ``<tmp>`` is a scratch area the bench may use. ``parent`` picks where
    ``<tmp>`` lives (default: :mod:`tempfile`'s, which honours ``$TMPDIR``).
    """
    previous = os.environ.get("DSH_HOME")
    with tempfile.TemporaryDirectory(prefix=prefix, dir=parent) as raw:
        home = Path(raw) / "home"
        os.environ["DSH_HOME"] = str(home)
        try:
            yield home
        finally:
            if previous is None:
                os.environ.pop("DSH_HOME", None)
            else:
                os.environ["DSH_HOME"] = previous


def profile(fn: Callable[[], object], *, top: int = 25, sort: str = "cumulative") -> None:
    """cProfile one call of ``fn`` and print the ``top`` rows (for digging into an OVER)."""
    import cProfile
    import pstats

    prof = cProfile.Profile()
    prof.enable()
    fn()
    prof.disable()
    pstats.Stats(prof).strip_dirs().sort_stats(sort).print_stats(top)


def profiled(fn: Callable[..., Awaitable[object]], *, top: int = 30, focus: str | None = None) -> Callable[..., Awaitable[None]]:
    """Wrap an async ``fn`` so one call runs under cProfile and prints its stats:
    by internal time, and (``focus``) the cumulative rows of matching modules."""

    async def wrapper(*args: object) -> None:
        import cProfile
        import pstats

        prof = cProfile.Profile()
        prof.enable()
        await fn(*args)
        prof.disable()
        print(f"\n--- profile of {getattr(fn, '__name__', fn)} ---")
        if focus:  # before strip_dirs: the focus names a package directory
            pstats.Stats(prof).sort_stats("cumulative").print_stats(focus, top)
        pstats.Stats(prof).strip_dirs().sort_stats("tottime").print_stats(top)

    return wrapper


def fs_type(path: Path) -> str:
    """The file system ``path`` lives on (``tmpfs``, ``ext4``...), from /proc/mounts; ``?`` if unknown."""
    try:
        with open("/proc/mounts") as mounts:
            best = ("", "?")
            for line in mounts:
                parts = line.split()
                if len(parts) > 2 and str(path).startswith(parts[1]) and len(parts[1]) > len(best[0]):
                    best = (parts[1], parts[2])
        return best[1]
    except OSError:
        return "?"


def soak_run(test: str, label: str, *, env: Mapping[str, str], args: Sequence[str] = ()) -> bool:
    """Run one pytest node in its own process (in-process: ``-n 0``) with ``env``
    and print one line: ``label``, ok or FAILED, and the time; a failure prints
    the end of pytest's report. Returns whether it passed."""
    import subprocess

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    started = time.monotonic()
    command = [sys.executable, "-m", "pytest", "-p", "no:randomly", "-n", "0", "-q", "-x", test, *args]
    result = subprocess.run(command, cwd=root, env=dict(env), capture_output=True, text=True, check=False)
    verdict = "ok" if result.returncode == 0 else "FAILED"
    print(f"{label}: {verdict} in {time.monotonic() - started:.0f}s", flush=True)
    if result.returncode != 0:
        print(result.stdout[-6000:], flush=True)
    return result.returncode == 0
