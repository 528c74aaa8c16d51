import contextlib
import io
import sys


@contextlib.contextmanager
def tag(name, log):
    log.append("<" + name + ">")
    try:
        yield name.upper()
    finally:
        log.append("</" + name + ">")


class Resource:
    def __init__(self, name, log):
        self.name, self.log = name, log

    def close(self):
        self.log.append("closed " + self.name)


log = []
with tag("a", log) as value, tag("b", log):
    log.append(value)
with contextlib.ExitStack() as stack:
    for name in ("x", "y"):
        stack.enter_context(tag(name, log))
    stack.callback(log.append, "callback")
with contextlib.suppress(KeyError, ZeroDivisionError):
    {}["missing"]
with contextlib.closing(Resource("r", log)):
    pass
buffer, errors = io.StringIO(), io.StringIO()
with contextlib.redirect_stdout(buffer), contextlib.redirect_stderr(errors):
    print("captured")
    print("to stderr", file=sys.stderr)
with contextlib.nullcontext("enter value") as v:
    log.append(v)


class Managed(contextlib.ContextDecorator):
    def __enter__(self):
        log.append("enter")
        return self

    def __exit__(self, *exc):
        log.append("exit")
        return False


@Managed()
def decorated():
    log.append("body")


decorated()
print(log)
print(repr(buffer.getvalue()), repr(errors.getvalue()))
with contextlib.chdir("."):
    print("chdir ok")
