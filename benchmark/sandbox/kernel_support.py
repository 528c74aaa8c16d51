"""What the kernel isolation layer found on this machine (``isolation.detect`` makes it).

Kept apart from the detection, which loads the harness's ctypes bindings: the result cache
reads a stored kernel profile's fields without them (a run served wholly from the cache
imports no sandbox code that starts or confines anything).
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class KernelSupport:
    user_namespaces: bool
    network_namespace: bool
    pid_namespace: bool
    landlock_abi: int
    seccomp: bool
    reasons: dict[str, str] = field(default_factory=dict)
    ipc_namespace: bool = False
    private_root: bool = False
    pids_cgroup: bool = False

    @property
    def any(self) -> bool:
        return self.network_namespace or self.pid_namespace or self.landlock_abi > 0 or self.seccomp
