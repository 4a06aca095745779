"""Assignment 3: word frequencies.

Complete `count_words` and `top_words`. Do not change `main`.
"""
import heapq
import sys


def read_text(path):
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def normalise(word):
    """Lower-case a word and strip the punctuation around it."""
    stripped = word.strip(".,;:!?\"'()[]{}")
    return stripped.lower()


def count_words(text):
    counts = {}
    for line in text.splitlines():
        for raw in line.split():
            word = normalise(raw)
            if not word:
                continue
            if word in counts:
                counts[word] += 1
            else:
                counts[word] = 1
    return counts


def top_words(counts, n):
    best = heapq.nsmallest(n, counts.items(), key=lambda entry: (-entry[1], entry[0]))
    return list(best)


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
