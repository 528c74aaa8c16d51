import logging
import logging.config
import logging.handlers
import os

os.makedirs("logs", exist_ok=True)
logging.config.dictConfig({
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(levelname)s %(name)s %(message)s"}},
    "handlers": {
        "file": {"class": "logging.FileHandler", "filename": "logs/app.log", "formatter": "plain",
                 "mode": "w"},
        "rotating": {"class": "logging.handlers.RotatingFileHandler", "filename": "logs/rot.log",
                     "maxBytes": 200, "backupCount": 2, "formatter": "plain"},
        "console": {"class": "logging.StreamHandler", "stream": "ext://sys.stdout", "formatter": "plain",
                    "level": "CRITICAL"},
    },
    "loggers": {"svc": {"handlers": ["file", "rotating", "console"], "level": "DEBUG"}},
})
log = logging.getLogger("svc")
log.critical("to the console too")
for i in range(12):
    log.debug("message number %02d", i)
try:
    1 / 0
except ZeroDivisionError:
    log.exception("failed")  # to the file handlers only: a traceback names this file's path
logging.shutdown()
with open("logs/app.log") as handle:
    text = handle.read()
print(text.count("\n"), "Traceback (most recent call last):" in text, text.rstrip().splitlines()[-1])
print(sorted(os.listdir("logs")))
plain = logging.getLogger("plain")
file_handler = logging.FileHandler("plain.log", encoding="utf-8", delay=True)
plain.addHandler(file_handler)
plain.warning("héllo file")
file_handler.close()
timed = logging.handlers.TimedRotatingFileHandler("logs/timed.log", when="D", backupCount=1)
timed.emit(logging.makeLogRecord({"msg": "timed", "levelno": 20, "levelname": "INFO"}))
timed.close()
memory = logging.handlers.MemoryHandler(10, target=logging.StreamHandler(open("logs/mem.log", "w")))
memory.handle(logging.makeLogRecord({"msg": "buffered", "levelno": 20}))
memory.close()
print(open("plain.log", encoding="utf-8").read(), open("logs/timed.log").read(), open("logs/mem.log").read())
