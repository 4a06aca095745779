"""Assignment 3: word frequencies.

Complete `count_words` and `top_words`. Do not change `main`.
"""
import string
import sys


def read_text(path):
    with open(path, encoding="utf-8") as handle:
        return handle.read()


class Tally:
    """Counts how often each word occurs."""

    def __init__(self):
        self.seen = {}

    def add(self, word):
        self.seen[word] = self.seen.get(word, 0) + 1

    def most_frequent(self, n):
        words = list(self.seen)
        words.sort(key=lambda w: (-self.seen[w], w))
        return [(w, self.seen[w]) for w in words[:n]]


def count_words(text):
    tally = Tally()
    table = str.maketrans("", "", string.punctuation)
    for word in text.translate(table).lower().split():
        tally.add(word)
    return tally


def top_words(counts, n):
    return counts.most_frequent(n)


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
