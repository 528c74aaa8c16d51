"""The bandit process's side of ``benchmark.sandbox.bandit_process``: run as a script
(``python -I bandit_server.py FOLDER``: its scans' temporary files go in FOLDER, which the
grader removes), it reads one JSON request per line and answers each with
bandit's findings (the protocol is in ``benchmark.sandbox.bandit_process``). Nothing imports it."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any


def _cap_cpu(seconds: float) -> None:
    """Let this process use ``seconds`` more CPU time at most (then SIGXCPU ends it)."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_SELF)
    cap = int(usage.ru_utime + usage.ru_stime + seconds) + 1
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    resource.setrlimit(resource.RLIMIT_CPU, (cap if hard == resource.RLIM_INFINITY else min(cap, hard), hard))


GC_THRESHOLDS = (50_000, 20, 20)  # as a grading process's (``benchmark.engine.warmup``)


def _tune_gc() -> None:
    """Bandit and its plugins, loaded for good, out of the collector's reach, and collections
    rarer: each scanned tree is garbage in reference cycles (bandit links every node to its
    parent), still collected, in larger batches (about 8% less CPU per file)."""
    import gc

    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


def serve() -> None:
    if len(sys.argv) > 1:  # the folder the grader made for the files it scans, and removes
        import tempfile

        tempfile.tempdir = sys.argv[1]
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent))
    from benchmark.analyzers import bandit_visit, security

    security.bandit_modules()
    bandit_visit.install()  # bandit's visitor without the work no finding depends on
    _tune_gc()
    for line in sys.stdin.buffer:
        request = json.loads(line)
        _cap_cpu(request["cpu_s"])
        try:
            found = security._run_bandit(request["text"], request["name"])
            answer: dict[str, Any] = {"issues": [[i.test_id, i.test_name, i.severity, i.confidence,
                                                  i.line, i.text] for i in found]}
        except security.BanditError as exc:
            answer = {"error": str(exc)}
        except Exception as exc:  # noqa: BLE001 - reported to the grader, which raises it there
            answer = {"crash": f"{type(exc).__name__}: {exc}"}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    serve()
