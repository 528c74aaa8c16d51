import re

LOG = re.compile(r"(?P<level>[A-Z]+)\s+\[(?P<module>\w+)\]\s+(?P<msg>.*)")
m = LOG.match("ERROR [db] connection lost")
print(m.group("level"), m["module"], m.groupdict(), m.span("msg"))
print(re.findall(r"\d+", "a1b22c333"), [x.group() for x in re.finditer(r"[aeiou]", "regex")])
print(re.sub(r"(\w+)@(\w+)", r"\2 at \1", "ann@home bo@work"),
      re.sub(r"\d", lambda m: str(int(m[0]) * 2), "a1b4"))
print(re.split(r"[,;]\s*", "a, b;c"), re.fullmatch(r"\d{3}", "123") is not None,
      re.search(r"^b", "a\nb", re.M).start())
print(re.escape("a.b*c"), re.compile(r"hello", re.I).search("Say HELLO").group(), re.subn("a", "o", "banana"))
verbose = re.compile(r"""
    (\d{4})  # year
    -(\d{2}) # month
""", re.VERBOSE)
print(verbose.findall("2024-02 and 1999-12"), re.match(r"(?i)ß", "SS"), bool(re.match(r"\w+", "été")))
