"""The fuzz and differential harness: mutated programs through the three readers, random
tensor programs through the interpreter and the llvm backend, in worker processes.

    python test/fuzz/run.py                         # the long run (`make fuzz`)
    python test/fuzz/run.py --readers 3000 --programs 300 --seed 7 --jobs 2

It prints the counts per outcome and, for each distinct failure (by signature), one
input that shows it; `--save DIR` writes those inputs there. Exit status 1 when anything
failed. The same seed gives the same inputs. Ctrl-C or SIGTERM stops a run early; it
still prints the counts it reached.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import signal
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from mutations import dictionary, mutate  # noqa: E402
from readers import FAILURES, KINDS, seeds  # noqa: E402
from workers import Workers  # noqa: E402

READER_SHARES = {"mlir": 0.4, "graph": 0.4, "python": 0.2}
"""How the mutated inputs divide between the readers (Python source reads slowest)."""
PROGRAM_FAILURES = ("rejected", "mismatch", "crash", "mutated", "hang", "died")


def reader_jobs(count: int, seed: int) -> Iterator[tuple[str, str, str]]:
    """`count` mutated inputs, spread over the readers by READER_SHARES."""
    corpus = {kind: seeds(kind) for kind in KINDS}
    tokens = {kind: dictionary(texts) for kind, texts in corpus.items()}
    rng = random.Random(seed)
    kinds = list(READER_SHARES)
    weights = list(READER_SHARES.values())
    for _ in range(count):
        kind = rng.choices(kinds, weights)[0]
        text = mutate(rng.choice(corpus[kind]), rng, tokens[kind])
        yield ("read", kind, text)


def program_jobs(count: int, seed: int) -> Iterator[tuple[str, dict[str, Any]]]:
    for k in range(count):
        yield ("program", {"seed": seed * 1_000_000 + k})


def interleave(readers: int, programs: int, seed: int) -> Iterator[tuple[Any, ...]]:
    """Both streams mixed in proportion, so that a run cut short has sampled both."""
    mutated, generated = reader_jobs(readers, seed), program_jobs(programs, seed)
    total, sent = readers + programs, 0
    for index in range(total):
        if sent < programs and sent * total <= index * programs:
            sent += 1
            yield next(generated)
        else:
            yield next(mutated)


def fuzz(readers: int, programs: int, seed: int, jobs: int, timeout: float, save: Path | None, quiet: bool) -> int:
    counts: Counter[str] = Counter()
    failures: dict[str, tuple[Any, dict[str, Any]]] = {}
    started = time.monotonic()
    done: Counter[str] = Counter()
    total = readers + programs
    try:
        with Workers(jobs, timeout) as workers:
            for job, outcome in workers.run(interleave(readers, programs, seed)):
                area = "reader" if job[0] == "read" else "program"
                done[area] += 1
                label = f"{job[1]} {outcome['kind']}" if area == "reader" else f"program {outcome['kind']}"
                counts[label] += 1
                if outcome["kind"] in (FAILURES if area == "reader" else PROGRAM_FAILURES):
                    signature = outcome.get("signature") or outcome["kind"]
                    if signature not in failures:
                        failures[signature] = (job, outcome)
                        if not quiet:
                            print(f"new failure: {signature}\n    {outcome['detail'].splitlines()[0][:300]}", flush=True)
                if not quiet and done.total() % 1000 == 0:
                    rate = done.total() / (time.monotonic() - started)
                    print(
                        f"{done.total()}/{total} inputs ({done['reader']} mutated, {done['program']} programs),"
                        f" {rate:.1f}/s, {len(failures)} distinct failures",
                        flush=True,
                    )
        stopped = ""
    except KeyboardInterrupt:  # a run cut short still reports what it covered
        stopped = " (interrupted)"
    elapsed = time.monotonic() - started
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)  # the workers, all stopped by now
    print(
        f"fuzz: {done['reader']} mutated inputs, {done['program']} random programs, seed {seed},"
        f" {elapsed:.0f} s"
        f" ({usage.ru_utime + usage.ru_stime:.0f} s of worker CPU){stopped}"
    )
    for label in sorted(counts):
        print(f"  {label:28} {counts[label]}")
    print(f"  {'distinct failures':28} {len(failures)}")
    if save is not None:
        save.mkdir(parents=True, exist_ok=True)
    for index, (signature, (job, outcome)) in enumerate(sorted(failures.items())):
        print(f"FAILURE {signature}\n  {outcome['detail'][:2000]}")
        if save is not None:
            (save / f"failure{index}.json").write_text(json.dumps({"job": job, "outcome": outcome}, indent=1))
    return 1 if failures else 0


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--readers", type=int, default=100_000, help="mutated inputs (default 100000)")
    parser.add_argument("--programs", type=int, default=10_000, help="random programs (default 10000)")
    parser.add_argument("--seed", type=int, default=1, help="the run's seed (default 1)")
    cores = len(os.sched_getaffinity(0))
    parser.add_argument("--jobs", type=int, default=cores, help="worker processes (default: one per core)")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per input before it is a hang")
    parser.add_argument("--save", type=Path, help="directory for one input per distinct failure")
    parser.add_argument("--quiet", action="store_true", help="only the summary")
    parser.add_argument("--kernel-cache", type=Path, help="the workers' kernel cache (default: new per run)")
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, _interrupt)  # `kill` stops a long run as Ctrl-C does
    with tempfile.TemporaryDirectory(prefix="tsjit-fuzz-") as fresh:
        # The workers share one kernel cache: a kernel one compiled, the others load. A new
        # one per run keeps the run's time independent of earlier runs.
        os.environ["TSJIT_CACHE_DIR"] = str(args.kernel_cache or fresh)
        return fuzz(args.readers, args.programs, args.seed, args.jobs, args.timeout, args.save, args.quiet)


if __name__ == "__main__":
    sys.exit(main())
