"""The zygote's view of its runs' processes, through /proc and signals (runs INSIDE the
zygote; standard library only, loaded by path like the other harness modules): a process's
children and descendants, whether a run has exited, and the SIGKILL of a run's whole tree."""

import os
import signal


def _children(pid):
    """Pids whose parent is ``pid`` (zombies included)."""
    found = []
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/children", encoding="ascii") as handle:
                found += [int(p) for p in handle.read().split()]
        return found
    except OSError:
        pass
    for entry in os.listdir("/proc"):  # kernels without CONFIG_PROC_CHILDREN
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as handle:
                    fields = handle.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry))
    return found


def _descendants(pid):
    seen, todo = [], [pid]
    while todo:
        for kid in _children(todo.pop()):
            if kid not in seen:
                seen.append(kid)
                todo.append(kid)
    return seen


def _kill(pid):
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass


def _running(pid):
    """The run has not exited yet (it is not even a zombie waiting to be reaped)."""
    return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is None


def _kill_run(pid):
    """SIGKILL the run's group and every descendant (the leader is alive or a zombie, so
    neither its pid nor its group id can have been reused)."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:
        pass
    for victim in _descendants(pid):
        _kill(victim)
    _kill(pid)
