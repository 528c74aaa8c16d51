import configparser

config = configparser.ConfigParser()
config["DEFAULT"] = {"timeout": "30", "debug": "no"}
config["server"] = {"host": "localhost", "port": "8080"}
config["paths"] = {"root": "/srv", "logs": "${root}/logs"}
with open("settings.ini", "w") as handle:
    config.write(handle)
loaded = configparser.ConfigParser(interpolation=configparser.ExtendedInterpolation())
print(loaded.read("settings.ini"), loaded.sections())
print(loaded.getint("server", "port"), loaded.getboolean("server", "debug"),
      loaded["paths"]["logs"], loaded.get("server", "missing", fallback="fb"))
print(dict(loaded["server"]), loaded.has_option("server", "timeout"))
parser = configparser.ConfigParser()
parser.read_string("[a]\nx = 1\n")
print(parser["a"]["x"], open("settings.ini").read().splitlines()[:3])
