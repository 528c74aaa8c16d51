import os
import pathlib
import sqlite3

db = sqlite3.connect("app.db")
db.execute("PRAGMA journal_mode=WAL")
db.execute("CREATE TABLE kv (k TEXT PRIMARY KEY, v TEXT)")
db.execute("INSERT INTO kv VALUES ('a', '1')")
db.commit()
db.close()
print(os.path.exists("app.db"), os.path.getsize("app.db") > 0)
with sqlite3.connect(pathlib.Path("app.db")) as again:
    print(again.execute("SELECT v FROM kv WHERE k = 'a'").fetchone())
DB = pathlib.Path(__file__).parent / "app.db"  # the usual spelling: a path beside the script
with sqlite3.connect(database=DB, timeout=2) as again:
    print(again.execute("SELECT count(*) FROM kv").fetchone(), sqlite3.connect.__name__)
readonly = sqlite3.connect("file:app.db?mode=ro", uri=True)
try:
    readonly.execute("INSERT INTO kv VALUES ('b', '2')")
except sqlite3.OperationalError as exc:
    print("read-only:", exc)
readonly.close()
os.makedirs("data", exist_ok=True)
nested = sqlite3.connect(os.path.join(os.getcwd(), "data", "nested.sqlite3"), timeout=1,
                         detect_types=sqlite3.PARSE_DECLTYPES)
nested.execute("CREATE TABLE t (x)")
nested.execute("ATTACH DATABASE 'app.db' AS other")
print(nested.execute("SELECT v FROM other.kv").fetchall())
backup = sqlite3.connect("backup.db")
nested.backup(backup)
backup.close()
nested.close()
print(sorted(f for f in os.listdir(".") if "db" in f or f == "data"))
