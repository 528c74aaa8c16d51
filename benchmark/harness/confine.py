"""Confinement applied in a child before any submission code runs: resource limits, then
namespaces (user, network, pid, IPC, UTS, mount), pid 1, a pids limit, a private root,
Landlock and seccomp. Grader-free (ctypes and the standard library only), so both the
grader's pre-exec path and the zygote's forked children use it.

The policy is a plain dict (``benchmark.sandbox.isolation.KernelPolicy`` as a dict), so it crosses
the zygote's socket as JSON.
"""

import ctypes
import os
import resource
import signal

try:
    from . import landlock, mounts, seccomp
except ImportError:  # loaded as a top-level module by the zygote, from this folder
    import landlock
    import mounts
    import seccomp

CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x10000000, 0x20000000, 0x40000000
CLONE_NEWNS, CLONE_NEWIPC, CLONE_NEWUTS = 0x00020000, 0x08000000, 0x04000000
PR_SET_PDEATHSIG = 1

_libc = ctypes.CDLL(None, use_errno=True)


def apply_limits(limits):
    """``{resource number: value}``: soft and hard limit both, never above an existing hard limit."""
    for which, value in limits.items():
        which = int(which)
        _, hard = resource.getrlimit(which)
        cap = value if hard == resource.RLIM_INFINITY else min(value, hard)
        resource.setrlimit(which, (cap, cap))


def _write(path, text):
    with open(path, "w", encoding="ascii") as handle:
        handle.write(text)


def namespace_flags(network, pid, ipc=False, mount=False):
    """The clone/unshare flags of a new user namespace plus the namespaces asked for (``ipc``
    brings a UTS namespace with it)."""
    return (CLONE_NEWUSER | (CLONE_NEWNET if network else 0) | (CLONE_NEWPID if pid else 0)
            | (CLONE_NEWIPC | CLONE_NEWUTS if ipc else 0) | (CLONE_NEWNS if mount else 0))


def policy_flags(policy):
    """The namespace flags a policy asks for; 0 when it asks for none."""
    if not (policy["deny_network"] or policy["pid_namespace"] or policy["ipc_namespace"]
            or policy["private_root"]):
        return 0
    return namespace_flags(policy["deny_network"], policy["pid_namespace"],
                           policy["ipc_namespace"], policy["private_root"])


def enter_namespaces(network, pid, ipc=False, mount=False):
    """New user namespace (same ids mapped), plus the namespaces asked for."""
    uid, gid = os.getuid(), os.getgid()
    if _libc.unshare(namespace_flags(network, pid, ipc, mount)) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"unshare: {os.strerror(err)}")
    map_ids(uid, gid)


def map_ids(uid, gid):
    """Map the outer uid and gid to themselves in the new user namespace this process is
    in (``uid`` and ``gid`` as they were outside: inside, before the map, they read 65534)."""
    _write("/proc/self/setgroups", "deny")
    _write("/proc/self/uid_map", f"{uid} {uid} 1")
    _write("/proc/self/gid_map", f"{gid} {gid} 1")


def become_pid_one():
    """After unshare(CLONE_NEWPID): fork; the child is pid 1 and returns, the intermediate
    drops every descriptor above 2 (the result channel among them), waits for it and exits
    with its status (never returns)."""
    child = os.fork()
    if child == 0:
        _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        return
    os.closerange(3, 65536)
    _, status = os.waitpid(child, 0)
    if os.WIFSIGNALED(status):
        os._exit(128 + os.WTERMSIG(status))
    os._exit(os.WEXITSTATUS(status))


def join_cgroup(procs_file):
    """Move this process into a cgroup (its ``cgroup.procs`` file); what it starts follows."""
    _write(procs_file, "0")


def apply(policy, cloned_by=None):
    """Cgroup, namespaces, fork to pid 1, pids limit, private root, Landlock, seccomp (in
    this order), as ``policy`` says.

    ``cloned_by``: the (uid, gid) of a parent that created this process in its namespaces
    already (the zygote's ``clone``; this process is then pid 1): only the id maps remain."""
    if policy["pids_cgroup"]:
        join_cgroup(policy["pids_cgroup"])
    if cloned_by is not None:
        map_ids(*cloned_by)
    elif policy_flags(policy):
        enter_namespaces(policy["deny_network"], policy["pid_namespace"],
                         policy["ipc_namespace"], policy["private_root"])
        if policy["pid_namespace"]:
            become_pid_one()
    if policy["pids_max"] and (cloned_by is not None or policy_flags(policy)):
        # counted per user namespace (Linux 5.14 on), so only this run's tasks count (outside
        # one it would count every process of the grader's user); root is exempt from it and
        # relies on the cgroup above
        apply_limits({resource.RLIMIT_NPROC: policy["pids_max"]})
    if policy["private_root"]:
        mounts.private_root(policy["write_paths"][0],
                            [*policy["read_paths"], *policy["exec_paths"]], policy["tmpfs_mb"])
    if policy["landlock"]:
        # with the private root, its /dev/shm is the run's own tmpfs (mounts.SHM): named
        # semaphores are made there; the machine's is not in the root
        writes = [*policy["write_paths"], *([mounts.SHM] if policy["private_root"] else [])]
        landlock.restrict(policy["read_paths"], policy["exec_paths"], writes,
                          deny_tcp=policy["deny_tcp"])
    if policy["seccomp"]:
        seccomp.install_deny_list()
