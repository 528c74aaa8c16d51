import string
import textwrap
import unicodedata

value, name = 1234.5678, "widget"
print(f"{value:,.2f}|{value:>12.1f}|{name:^10}|{name!r}|{42:08b}|{255:#x}|{0.25:.0%}|{value=:.1f}")
print("{0} and {1:>5}".format("a", "b"), "%s has %d items (%.1f%%)" % ("box", 3, 12.5), format(7, "03d"))
print(string.Template("$who likes ${what}").substitute(who="Ann", what="tea"), string.ascii_lowercase[:5])
text = "The quick brown fox jumps over the lazy dog " * 2
print(textwrap.wrap(text, width=30), textwrap.shorten(text, width=25))
print(repr(textwrap.dedent("    a\n      b\n")), repr(textwrap.indent("x\ny", "> ")))
print(textwrap.fill("word " * 8, width=20))
s = "Crème Brûlée"
print(unicodedata.normalize("NFKD", s).encode("ascii", "ignore").decode(), unicodedata.name("é"),
      unicodedata.category("A"), len(unicodedata.normalize("NFC", "e\u0301")))
print(s.casefold(), s.upper(), "ß".upper(), "ǅ".istitle(), "abc".removeprefix("a"), " x ".strip(),
      "a,b".partition(","))
print("3".zfill(3), "tab\tto".expandtabs(4), "Hello".center(11, "*"), "😀".encode("utf-8"), len("😀"))
