#!/usr/bin/env node
// Drive the Dolos library (@dodona/dolos-lib) from the command line: analyse the given
// files (directories are walked recursively) and print one CSV row per pair,
//   left,right,similarity,overlap,longest
// in Dolos's default order (its sortBy option, "total": by total overlap).
//
// Usage: node dolos.mjs [-l LANG] [-k K] [-w W] [--all] [--files-from LIST] PATH...
//   -l LANG          Dolos language name (python, java, char, ...); detected from the
//                    extensions when absent, as Dolos does.
//   -k K, -w W       k-gram length and window (Dolos defaults when absent: 23 and 17).
//   --all            also print pairs whose similarity is 0 (default: only pairs > 0).
//   --files-from F   read further paths from F, one per line.
// Paths in the output are the paths as given (or as found under a given directory).

import { readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { Dolos, File } from "@dodona/dolos-lib";

function usage(msg) {
  if (msg) process.stderr.write(`dolos.mjs: ${msg}\n`);
  process.stderr.write(
    "usage: node dolos.mjs [-l LANG] [-k K] [-w W] [--all] [--files-from LIST] PATH...\n",
  );
  process.exit(2);
}

function walk(path, out) {
  const st = statSync(path);
  if (st.isDirectory()) {
    for (const name of readdirSync(path).sort()) walk(join(path, name), out);
  } else if (st.isFile()) {
    out.push(path);
  }
}

function csvField(s) {
  return /[",\n\r]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

const args = process.argv.slice(2);
const opts = {};
let all = false;
const roots = [];
for (let i = 0; i < args.length; i++) {
  const a = args[i];
  const next = () => {
    if (i + 1 >= args.length) usage(`${a} needs a value`);
    return args[++i];
  };
  if (a === "-l" || a === "--language") opts.language = next();
  else if (a === "-k" || a === "--kgram-length") opts.kgramLength = Number(next());
  else if (a === "-w" || a === "--kgrams-in-window") opts.kgramsInWindow = Number(next());
  else if (a === "--all") all = true;
  else if (a === "--files-from") {
    for (const line of readFileSync(next(), "utf8").split("\n")) {
      if (line.trim() !== "") roots.push(line.trim());
    }
  } else if (a === "-h" || a === "--help") usage();
  else if (a.startsWith("-") && a !== "-") usage(`unknown option ${a}`);
  else roots.push(a);
}
if (roots.length === 0) usage("no paths given");
for (const k of ["kgramLength", "kgramsInWindow"]) {
  if (k in opts && !(Number.isInteger(opts[k]) && opts[k] > 0)) usage(`bad value for ${k}`);
}

const paths = [];
try {
  for (const r of roots) walk(r, paths);
} catch (e) {
  usage(e.message);
}

process.stdout.on("error", (e) => {
  if (e.code === "EPIPE") process.exit(0);
  throw e;
});

const files = paths.map((p) => new File(p, readFileSync(p, "utf8")));
const dolos = new Dolos(opts);
let report;
try {
  report = await dolos.analyze(files);
} catch (e) {
  process.stderr.write(`dolos.mjs: ${e.message}\n`);
  process.exit(1);
}
for (const w of report.warnings) process.stderr.write(`dolos.mjs: warning: ${w}\n`);

const out = ["left,right,similarity,overlap,longest"];
let n = 0;
const flush = () => {
  process.stdout.write(out.join("\n") + "\n");
  out.length = 0;
};
for (const pair of report.allPairs()) {
  if (!all && !(pair.similarity > 0)) continue;
  out.push(
    [
      csvField(pair.leftFile.path),
      csvField(pair.rightFile.path),
      pair.similarity.toFixed(6),
      pair.overlap,
      pair.longest,
    ].join(","),
  );
  if (++n % 10000 === 0) flush();
}
flush();
