import io
import logging
import sys

logging.basicConfig(level=logging.INFO, format="%(levelname)s:%(name)s:%(message)s", stream=sys.stdout)
log = logging.getLogger("app.module")
log.debug("hidden")
log.info("started %s with %d items", "job", 3)
log.warning("careful")
adapter = logging.LoggerAdapter(log, {"request": "r-1"})
adapter.info("through the adapter")


class Context(logging.LoggerAdapter):
    def process(self, msg, kwargs):
        return f"[{self.extra['request']}] {msg}", kwargs


Context(log, {"request": "r-2"}).error("custom adapter")
captured = io.StringIO()  # a traceback names this file's path: only its shape is printed
traced = logging.getLogger("traced")
traced.addHandler(logging.StreamHandler(captured))
traced.propagate = False
try:
    {}["missing"]
except KeyError:
    traced.exception("lookup failed")
    traced.error("with stack", stack_info=True)
lines = captured.getvalue().splitlines()
print(lines[:2], lines[lines.index("KeyError: 'missing'") + 1], lines[-1].strip())
handler = logging.StreamHandler(sys.stdout)
handler.setFormatter(logging.Formatter("%(name)s|%(levelname)-8s|%(message)s|%(funcName)s|%(lineno)d>0"))
child = logging.getLogger("app.child")
child.addHandler(handler)
child.propagate = False
child.setLevel(logging.DEBUG)


def work():
    child.debug("debug from %s", "work")


work()
child.info("extra field", extra={"user": "ann"})
logging.getLogger().setLevel(logging.ERROR)
log.info("filtered by the root level? no: the module logger has none of its own")
print(log.getEffectiveLevel(), logging.getLevelName(logging.WARNING), log.isEnabledFor(logging.INFO))
logging.disable(logging.CRITICAL)
log.critical("disabled")
logging.disable(logging.NOTSET)
stderr_logger = logging.getLogger("to.stderr")
stderr_logger.addHandler(logging.StreamHandler())
stderr_logger.warning("to stderr, not compared")
print("done")
