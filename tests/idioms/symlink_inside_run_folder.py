import os
import pathlib

pathlib.Path("real").mkdir()
pathlib.Path("real/target.txt").write_text("through the link")
os.symlink("real/target.txt", "relative_link.txt")
os.symlink(os.path.abspath("real"), "absolute_folder_link")
pathlib.Path("pathlib_link").symlink_to("real", target_is_directory=True)
os.symlink("target.txt", "real/sibling_link")
print(open("relative_link.txt").read(), os.readlink("relative_link.txt"), os.path.islink("relative_link.txt"))
print(sorted(os.listdir("absolute_folder_link")), pathlib.Path("pathlib_link/target.txt").read_text())
print(os.path.realpath("relative_link.txt") == os.path.realpath("real/target.txt"),
      pathlib.Path("pathlib_link").resolve().name)
print(open("real/sibling_link").read(), os.lstat("relative_link.txt").st_size,
      pathlib.Path("pathlib_link").is_symlink())
with open("absolute_folder_link/new.txt", "w") as handle:
    handle.write("written through a link")
print(pathlib.Path("real/new.txt").read_text())
os.unlink("relative_link.txt")
os.remove("absolute_folder_link")
print(sorted(os.listdir(".")), os.path.exists("real/target.txt"))
