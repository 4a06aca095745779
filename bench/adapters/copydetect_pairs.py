#!/usr/bin/env python3
"""Run copydetect at its defaults on directories and print its pair similarities as CSV.

usage: copydetect_pairs.py [-e EXT[,EXT...]] [-o LANGUAGE] [-f] DIR...

copydetect (CLI or API) reports, for each ordered pair of files, the fraction of the first
file's tokens found in the second. This prints one row per unordered pair that shares
anything: a,b,similarity,sim_a,sim_b with similarity = max(sim_a, sim_b). -f is copydetect's
--disable-filter: without it copydetect drops every plain-text token (Pygments' Text), so
it cannot see prose at its defaults. Run it with the
Python that has copydetect (bench/.venv/bin/python after bench/install-peers.sh).
"""

import argparse
import csv
import sys

from copydetect import CopyDetector


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("-e", "--extensions", default="*", help="comma-separated, e.g. java,py")
    ap.add_argument("-o", "--force-language", default=None)
    ap.add_argument("-f", "--disable-filter", action="store_true")
    args = ap.parse_args()
    det = CopyDetector(
        test_dirs=args.dirs,
        extensions=args.extensions.split(","),
        force_language=args.force_language,
        disable_filtering=args.disable_filter,
        autoopen=False,
        silent=True,
    )
    det.run()
    files = det.test_files
    if list(det.ref_files) != list(files):
        sys.exit("copydetect_pairs: test and reference file lists differ")
    m = det.similarity_matrix
    w = csv.writer(sys.stdout)
    w.writerow(["a", "b", "similarity", "sim_a", "sim_b"])
    for i in range(len(files)):
        for j in range(i + 1, len(files)):
            sa, sb = float(m[i, j, 0]), float(m[i, j, 1])
            if sa <= 0 and sb <= 0:
                continue
            w.writerow([files[i], files[j], f"{max(sa, sb):.6f}", f"{sa:.6f}", f"{sb:.6f}"])


if __name__ == "__main__":
    main()
