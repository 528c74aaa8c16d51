import shlex

print(shlex.split('grep -r "hello world" --include=*.py \'single quoted\''), shlex.quote("it's a file.txt"))
print(shlex.join(["echo", "a b", "$HOME"]), shlex.split("a # comment", comments=True))
lexer = shlex.shlex("key=value, other = 'x y'", posix=True)
lexer.whitespace_split = True
lexer.whitespace += ","
print(list(lexer))
