import sqlite3

with sqlite3.connect(":memory:") as db:
    db.execute("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT NOT NULL, age INTEGER)")
    db.executemany("INSERT INTO users (name, age) VALUES (?, ?)", [("ann", 31), ("bo", 25), ("cy", 40)])
    db.row_factory = sqlite3.Row
    row = db.execute("SELECT * FROM users WHERE name = :name", {"name": "bo"}).fetchone()
    print(dict(row), row.keys(), db.execute("SELECT count(*), avg(age) FROM users").fetchone()[:])
    db.create_function("shout", 1, lambda s: s.upper() + "!")
    print([r[0] for r in db.execute("SELECT shout(name) FROM users ORDER BY age DESC")])
    try:
        with db:
            db.execute("INSERT INTO users (name, age) VALUES ('dee', 1)")
            db.execute("INSERT INTO users (name) VALUES (NULL)")
    except sqlite3.IntegrityError as exc:
        print("rolled back:", exc)
    print(db.execute("SELECT count(*) FROM users").fetchone()[0], sqlite3.sqlite_version_info >= (3, 0, 0))
    cursor = db.cursor()
    cursor.execute("SELECT name FROM users ORDER BY name")
    print(cursor.fetchmany(2), cursor.description[0][0], sqlite3.paramstyle)
    print(list(db.iterdump())[:2])
temp = sqlite3.connect("")
temp.execute("CREATE TEMP TABLE t (x)")
print(temp.execute("SELECT count(*) FROM t").fetchone())
temp.close()
