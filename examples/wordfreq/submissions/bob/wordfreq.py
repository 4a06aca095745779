"""Assignment 3: word frequencies.

Complete `count_words` and `top_words`. Do not change `main`.
"""
import sys


def read_text(path):
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def top_words(table, limit):
    # sort by count, most frequent first, then alphabetically
    order = sorted(table.items(), key=lambda pair: (-pair[1], pair[0]))
    best = []
    for token, freq in order:
        if len(best) == limit:
            break
        best.append((token, freq))
    return best


def clean(token):
    """Make a token lower case without surrounding punctuation."""
    bare = token.strip(".,;:!?\"'()[]{}")
    return bare.lower()


def count_words(text):
    # build the frequency table line by line
    table = {}
    for row in text.splitlines():
        for piece in row.split():
            token = clean(piece)
            if not token:
                continue
            if token in table:
                table[token] += 1
            else:
                table[token] = 1
    return table


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
