"""Assignment 3: word frequencies.

Complete `count_words` and `top_words`. Do not change `main`.
"""
import re
import sys
from collections import Counter

WORD = re.compile(r"[a-z0-9']+")


def read_text(path):
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def count_words(text):
    return Counter(WORD.findall(text.lower()))


def top_words(counts, n):
    return sorted(counts.most_common(), key=lambda kv: (-kv[1], kv[0]))[:n]


def main(argv):
    if len(argv) != 3:
        print("usage: wordfreq.py FILE N", file=sys.stderr)
        return 2
    text = read_text(argv[1])
    counts = count_words(text)
    for word, count in top_words(counts, int(argv[2])):
        print(f"{count:6d} {word}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
