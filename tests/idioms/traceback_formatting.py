import sys
import traceback


def inner():
    raise ValueError("bad value")


def outer():
    try:
        inner()
    except ValueError as exc:
        raise RuntimeError("wrapped") from exc


try:
    outer()
except RuntimeError as exc:
    text = traceback.format_exc()
    print(traceback.format_exception_only(type(exc), exc), repr(exc.__cause__), exc.__suppress_context__)
    print("The above exception was the direct cause" in text, text.strip().splitlines()[-1])
    te = traceback.TracebackException.from_exception(exc)
    print([frame.name for frame in te.stack], te.exc_type.__name__, te.__cause__.exc_type.__name__)
    print([(f.name, f.lineno > 0) for f in traceback.extract_tb(exc.__traceback__)],
          sys.exc_info()[0].__name__)
    lines = traceback.format_exception(exc)
    print(lines[0], lines[-1].strip(), len(traceback.format_tb(exc.__traceback__)))
try:
    raise ExceptionGroup("many", [ValueError("a"), TypeError("b")])
except* ValueError as group:
    print("value errors:", [str(e) for e in group.exceptions])
except* TypeError as group:
    print("type errors:", [str(e) for e in group.exceptions])
try:
    err = KeyError("k")
    err.add_note("while loading config")
    raise err
except KeyError as exc:
    print(exc.__notes__, traceback.format_exception_only(exc)[-1].strip())

def where():  # (the frames above the script's own are the runner's: not printed)
    line = traceback.format_stack()[-1].strip().splitlines()[-1].strip()
    return line, [f.f_code.co_name for f, _ in traceback.walk_stack(sys._getframe())][:2]


print(where(), traceback.extract_stack()[-1].name)
try:
    None.attr
except AttributeError:
    traceback.print_exc(file=sys.stdout, limit=0)
