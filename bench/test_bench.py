"""Tests of the benchmark helpers: python3 -m unittest discover -s bench -p 'test_*.py'

The accuracy benchmark's tests (bench/quality/test_quality.py) are loaded from here too
(load_tests below), so `.ci/run`'s `python3 -m unittest -q test_bench` runs them.
"""

import json
import os
import random
import sys
import tempfile
import unittest

from metrics import average_precision, roc_auc
from pairs_io import by_ids, load_pairs, match_ids


def naive_auc(y, s):
    pos = [a for a, l in zip(s, y) if l]
    neg = [a for a, l in zip(s, y) if not l]
    tot = sum(1.0 if p > n else 0.5 if p == n else 0.0 for p in pos for n in neg)
    return tot / (len(pos) * len(neg))


def naive_ap(y, s):
    # Precision at each distinct threshold t (all items with score >= t are retrieved),
    # weighted by the recall gained at t.
    pos = sum(y)
    ap, prev = 0.0, 0.0
    for t in sorted(set(s), reverse=True):
        got = [l for a, l in zip(s, y) if a >= t]
        rec = sum(got) / pos
        ap += (rec - prev) * (sum(got) / len(got))
        prev = rec
    return ap


class MetricsTest(unittest.TestCase):
    def test_against_naive_definitions(self):
        r = random.Random(7)
        for _ in range(500):
            n = r.randint(2, 40)
            y = [r.randint(0, 1) for _ in range(n)]
            if len(set(y)) < 2:
                continue
            s = [r.choice([0.0, 0.25, 0.5, r.random()]) for _ in range(n)]
            self.assertAlmostEqual(roc_auc(y, s), naive_auc(y, s), places=12)
            self.assertAlmostEqual(average_precision(y, s), naive_ap(y, s), places=12)

    def test_perfect_and_reversed(self):
        y = [1, 1, 0, 0]
        self.assertEqual(roc_auc(y, [0.9, 0.8, 0.1, 0.0]), 1.0)
        self.assertEqual(roc_auc(y, [0.0, 0.1, 0.8, 0.9]), 0.0)
        self.assertEqual(average_precision(y, [0.9, 0.8, 0.1, 0.0]), 1.0)
        self.assertEqual(roc_auc(y, [0.5, 0.5, 0.5, 0.5]), 0.5)


class PairsIoTest(unittest.TestCase):
    def write(self, text, suffix=""):
        f = tempfile.NamedTemporaryFile("w", suffix=suffix, delete=False)
        f.write(text)
        f.close()
        self.addCleanup(os.unlink, f.name)
        return f.name

    def test_bryo_json(self):
        doc = {
            "submissions": [{"name": "x/a.py"}, {"name": "x/b.py"}, {"name": "x/c.py"}],
            "pairs": [{"a": 0, "b": 2, "similarity": 0.75}, {"a": 1, "b": 2, "similarity": 0.1}],
        }
        p = load_pairs(self.write(json.dumps(doc)))
        self.assertEqual(p, {frozenset(("x/a.py", "x/c.py")): 0.75,
                             frozenset(("x/b.py", "x/c.py")): 0.1})

    def test_sim_percentages_take_the_larger_direction(self):
        out = ("File d/a.c: 10 tokens, 3 lines\n"
               "d/a.c consists for 80 % of d/b.c material\n"
               "d/b.c consists for 20 % of d/a.c material\n")
        p = load_pairs(self.write(out))
        self.assertEqual(p, {frozenset(("d/a.c", "d/b.c")): 0.8})

    def test_csv_and_jscpd(self):
        p = load_pairs(self.write("left,right,similarity\np/a,p/b,0.5\n"))
        self.assertEqual(p, {frozenset(("p/a", "p/b")): 0.5})
        d = tempfile.mkdtemp()
        for name in ("a.py", "b.py"):
            with open(os.path.join(d, name), "w") as f:
                f.write("x\n" * 10)
        rep = {"duplicates": [{"firstFile": {"name": "a.py", "start": 1, "end": 5},
                               "secondFile": {"name": "b.py", "start": 3, "end": 7}}]}
        p = load_pairs(self.write(json.dumps(rep)), root=d)
        self.assertEqual(p, {frozenset(("a.py", "b.py")): 0.5})

    def test_match_ids_by_longest_suffix(self):
        ids = ["case-01/original/T1.java", "case-01/plagiarized/L1/01/T1.java"]
        m = match_ids(["/abs/root/case-01/original/T1.java", "./case-01/plagiarized/L1/01/T1.java",
                       "elsewhere/T1.java"], ids)
        self.assertEqual(m["/abs/root/case-01/original/T1.java"], ids[0])
        self.assertEqual(m["./case-01/plagiarized/L1/01/T1.java"], ids[1])
        self.assertIsNone(m["elsewhere/T1.java"])
        # Paths relative to a directory inside the dataset match when unambiguous.
        m = match_ids(["original/T1.java", "L1/01/T1.java", "T1.java"], ids)
        self.assertEqual(m["original/T1.java"], ids[0])
        self.assertEqual(m["L1/01/T1.java"], ids[1])
        self.assertIsNone(m["T1.java"])
        pairs = {frozenset(("/r/case-01/original/T1.java",
                            "/r/case-01/plagiarized/L1/01/T1.java")): 0.3}
        self.assertEqual(by_ids(pairs, ids), {frozenset(ids): 0.3})


class WebScaleTest(unittest.TestCase):
    def setUp(self):
        import importlib.util

        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "web-scale.py")
        spec = importlib.util.spec_from_file_location("web_scale", path)
        self.ws = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(self.ws)

    def test_mirrors_differ_from_the_page_and_from_each_other(self):
        page = b"<html><BODY class='x'>In the beginning the word.</BODY></html>"
        one, two = self.ws.mirrored(page, 1), self.ws.mirrored(page, 2)
        self.assertNotEqual(one, page)
        self.assertNotEqual(one, two)
        self.assertTrue(one.startswith(b"<html><BODY class='x'><p>Mirror number 1 "))
        self.assertIn(b"In this beginning the word.", one)
        # A page without a body gets the note in front.
        self.assertTrue(self.ws.mirrored(b"plain the text", 3).startswith(b"<p>Mirror number 3"))

    def test_a_page_and_its_mirrors_share_a_key(self):
        key = self.ws.page_key
        self.assertEqual(
            key("/usr/share/doc/python3.11/html/library/os.html"),
            key("/tmp/w/mirror03/python3.11/library/os.html"),
        )
        self.assertEqual(
            key("/usr/share/doc/rust-doc/html/std/vec/index.html"),
            key("/tmp/w/mirror12/rust-doc/std/vec/index.html"),
        )
        self.assertNotEqual(
            key("/usr/share/doc/rust-doc/html/std/vec/index.html"),
            key("/tmp/w/mirror12/rust-doc/core/vec/index.html"),
        )


if __name__ == "__main__":
    unittest.main()


def load_tests(loader, tests, pattern):
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "quality"))
    import test_quality

    tests.addTests(loader.loadTestsFromModule(test_quality))
    return tests
