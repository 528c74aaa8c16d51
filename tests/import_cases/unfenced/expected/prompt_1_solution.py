import json
import sys


def main(argv):
    print(json.dumps(argv))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
