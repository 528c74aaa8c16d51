import fnmatch
import glob
import os
import pathlib

for name in ("src/app.py", "src/util/helpers.py", "src/util/data.json", "docs/index.md", "top.txt"):
    os.makedirs(os.path.dirname(name) or ".", exist_ok=True)
    pathlib.Path(name).write_text(name)
print(sorted(os.listdir(".")), sorted(os.listdir()), sorted(os.listdir(os.getcwd())))
print(sorted(glob.glob("**/*.py", recursive=True)), sorted(glob.glob("src/*")), sorted(glob.iglob("*.txt")))
absolute = glob.glob(os.path.join(os.getcwd(), "docs", "*.md"))
print(absolute == [os.path.join(os.getcwd(), "docs", "index.md")])
with os.scandir("src") as entries:
    print(sorted((e.name, e.is_dir(), e.is_file()) for e in entries))
print(sorted(str(p) for p in pathlib.Path(".").rglob("*.json")),
      sorted(p.name for p in pathlib.Path("src").glob("**/*")))
walked = [(root, sorted(dirs), sorted(files)) for root, dirs, files in os.walk("src")]
print(sorted(walked), sorted(os.path.relpath(r) for r, _, _ in os.walk(os.getcwd())))
print(fnmatch.filter(os.listdir("src/util"), "*.py"), pathlib.Path("src").is_dir(),
      sorted(pathlib.Path().iterdir())[0].name)
bottom_up = [os.path.basename(root) for root, _, _ in os.walk("src", topdown=False)]
print(bottom_up[-1], [f for _, _, f in os.walk("src", onerror=print)][0])
print(sorted(os.listdir(os.path.expanduser("~"))) == sorted(os.listdir(os.path.expanduser("~"))))
