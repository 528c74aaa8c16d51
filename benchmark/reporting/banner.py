"""The security banner printed at start: built only from what the runner reports it applied."""

from __future__ import annotations

from typing import Any

WIDTH = 96


def _row(label: str, value: str) -> str:
    text = f" {label:<26}{value}"
    return f"║{text[:WIDTH]:<{WIDTH}}║"


def _layer_value(layer: Any) -> str:
    if not isinstance(layer, dict):
        return str(layer)
    status = str(layer.get("status", "unknown"))
    reason = layer.get("reason")
    return f"{status} ({reason})" if reason and status != "applied" else status


def _kernel_value(kernel: Any) -> str:
    if not isinstance(kernel, dict) or kernel.get("status") != "applied":
        return _layer_value(kernel)
    spaces = [name for name, on in (("net", kernel.get("network_namespace")),
                                    ("pid", kernel.get("pid_namespace")),
                                    ("IPC", kernel.get("ipc_namespace")),
                                    ("mount", kernel.get("private_root"))) if on]
    parts = [f"namespaces ({', '.join(spaces)})"] if spaces else []
    if kernel.get("landlock_abi"):
        parts.append(f"Landlock v{kernel['landlock_abi']}")
    if kernel.get("seccomp"):
        parts.append("seccomp")
    return "applied: " + ", ".join(parts)


def _confinement_rows(kernel: Any) -> list[tuple[str, str]]:
    """The private root and the task limit, when the kernel layer is applied."""
    if not isinstance(kernel, dict) or kernel.get("status") != "applied":
        return []
    root = kernel.get("private_root")
    return [("Filesystem", f"private root; sandbox on a {kernel.get('sandbox_tmpfs_mb', '?')} MB tmpfs"
             if root else "host's (no mount namespace)"),
            ("Tasks", str(kernel.get("pids_limit") or "no limit"))]


def banner_rows(isolation: dict[str, Any]) -> list[tuple[str, str]]:
    process = isolation.get("process", {})
    limits = process.get("rlimits", {})
    rows = [
        ("Process layer", _layer_value(process)),
        ("Kernel layer", _kernel_value(isolation.get("kernel"))),
        ("Guard layer", _layer_value(isolation.get("guard"))),
        *_confinement_rows(isolation.get("kernel")),
        ("Network", str(isolation.get("network", "unknown"))),
        ("Timeout", f"{process.get('timeout_s', '?')} s wall, whole tree killed"),
        ("Memory", f"{limits.get('address_space_mb', '?')} MB address space "
                   f"(--mem {limits.get('memory_mb', '?')} + idle child {limits.get('idle_child_mb', '?')})"),
        ("Environment", str(process.get("environment", "unknown"))),
        ("Unsafe mode", "ON" if isolation.get("unsafe") else "off"),
    ]
    for label, outcome in (isolation.get("network_probe") or {}).items():
        rows.append((f"Net probe ({label.replace('_', ' ')})", str(outcome)))
    return rows


def format_banner(isolation: dict[str, Any]) -> str:
    lines = ["╔" + "═" * WIDTH + "╗", f"║{'RubricBench isolation status':^{WIDTH}}║", "╠" + "═" * WIDTH + "╣"]
    lines += [_row(label, value) for label, value in banner_rows(isolation)]
    lines.append("╚" + "═" * WIDTH + "╝")
    return "\n".join(lines)
