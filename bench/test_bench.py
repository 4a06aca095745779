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


FAKE_BRYO = r'''#!/usr/bin/env python3
# Prints a `--timings` table whose analyze wall time is FAKE_ANALYZE (or the
# next value of a list in a file), as `bryo compare --timings` lays it out.
import os, sys
assert sys.argv[-1] == "--timings", sys.argv
print("some report on standard output")
values = os.environ.get("FAKE_ANALYZE", "10")
if os.path.exists(values):
    lines = open(values).read().split()
    open(values, "w").write(" ".join(lines[1:]))
    values = lines[0]
extra = float(sys.argv[-2]) if sys.argv[-2] != "ARG" else 0.0
analyze = float(values) + extra
err = sys.stderr
err.write("bryo: timings (wall, and CPU of all threads: user + system; ...)\n")
err.write("phase          wall ms    CPU ms   user ms    sys ms   faults  peak MB\n")
err.write("discover           1.0       2.0       1.5       0.5       10      3.0\n")
err.write("analyze     %9.1f %9.1f       0.0       0.0       10      3.0\n" % (analyze, 2 * analyze))
err.write("total       %9.1f %9.1f       0.0       0.0       20      3.0\n" % (1 + analyze, 2 + 2 * analyze))
err.write("bryo: huge pages: allowed (the system's mode: madvise)\n")
'''


class AbTimingsTest(unittest.TestCase):
    def setUp(self):
        import importlib.util
        import stat

        here = os.path.dirname(os.path.abspath(__file__))
        spec = importlib.util.spec_from_file_location("ab_timings", os.path.join(here, "ab_timings.py"))
        self.ab = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(self.ab)
        self.dir = tempfile.mkdtemp()
        self.fake = os.path.join(self.dir, "fake-bryo")
        with open(self.fake, "w") as f:
            f.write(FAKE_BRYO)
        os.chmod(self.fake, os.stat(self.fake).st_mode | stat.S_IXUSR)

    def test_the_timings_table_is_read(self):
        text = ("bryo: timings (wall, ...)\n"
                "phase          wall ms    CPU ms   user ms    sys ms   faults  peak MB\n"
                "discover          23.7      19.7       0.0      19.7      619     16.4\n"
                "fragments         50.1      98.6      98.6       0.0        9    108.1\n"
                "bryo: huge pages: allowed (the system's mode: madvise)\n")
        self.assertEqual(self.ab.parse_timings(text),
                         {"discover": (23.7, 19.7), "fragments": (50.1, 98.6)})

    def test_builds_are_parsed_with_their_environment_and_arguments(self):
        self.assertEqual(self.ab.parse_build("a=/x/bryo"), ("a", "/x/bryo", [], {}))
        self.assertEqual(self.ab.parse_build("off=BRYO_NO_SIMD=1:/x/bryo+-j+3"),
                         ("off", "/x/bryo", ["-j", "3"], {"BRYO_NO_SIMD": "1"}))
        for bad in ("nolabel", "=bin", "a=X:bin", "a=K=V:"):
            with self.assertRaises(ValueError, msg=bad):
                self.ab.parse_build(bad)

    def test_medians_of_alternating_runs_and_ratios(self):
        # The first build's analyze times come from a list: 10, 30, 20 ->
        # median 20; the second's are FAKE_ANALYZE=5 plus 10 from its
        # argument: 15 every time.
        values = os.path.join(self.dir, "values")
        with open(values, "w") as f:
            f.write("10 30 20")
        builds = [self.ab.parse_build(f"a=FAKE_ANALYZE={values}:{self.fake}+ARG"),
                  self.ab.parse_build(f"b=FAKE_ANALYZE=5:{self.fake}+10")]
        results = self.ab.run_rounds(builds, ["compare", "DIR"], 3)
        self.assertEqual(results["a"]["analyze"], [(10.0, 20.0), (30.0, 60.0), (20.0, 40.0)])
        labels, rows = self.ab.table(results)
        self.assertEqual(labels, ["a", "b"])
        by_phase = {r[0]: r[1:] for r in rows}
        self.assertEqual(by_phase["analyze"], ["20.0", "40.0", "1.000", "1.000",
                                               "15.0", "30.0", "0.750", "0.750"])
        self.assertEqual(by_phase["total"][4:6], ["16.0", "32.0"])

    def test_the_heading_names_the_processor_and_its_cores(self):
        name = self.ab.machine()
        self.assertTrue(name.endswith(f", {os.cpu_count()} cores"), name)
        self.assertGreater(len(name), len(f", {os.cpu_count()} cores"))

    def test_a_build_without_a_table_is_an_error(self):
        with self.assertRaises(RuntimeError):
            self.ab.run_rounds([("t", "/bin/true", [], {})], [], 1)


if __name__ == "__main__":
    unittest.main()


def load_tests(loader, tests, pattern):
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "quality"))
    import test_quality

    tests.addTests(loader.loadTestsFromModule(test_quality))
    return tests
