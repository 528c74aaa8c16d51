import io

text = io.StringIO()
text.write("first\n")
print("second", file=text)
text.seek(0)
print(text.readlines(), text.tell())
raw = io.BytesIO(b"abc\ndef\n")
print(raw.readline(), raw.read(2), raw.getbuffer().nbytes)
raw.seek(0, io.SEEK_END)
raw.write(b"xyz")
print(raw.getvalue())
wrapped = io.TextIOWrapper(io.BytesIO("é\nb\n".encode("utf-8")), encoding="utf-8")
print(list(wrapped))
buffered = io.BufferedReader(io.BytesIO(b"0123456789"), buffer_size=4)
print(buffered.peek(2)[:2], buffered.read(3))
with io.open("notes.txt", "w", encoding="utf-8") as handle:
    handle.writelines(["a\n", "b\n"])
with open("notes.txt", "rb", buffering=0) as handle:
    print(type(handle).__name__, handle.read())
