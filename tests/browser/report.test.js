// End-to-end test of bryo's HTML report in headless Chromium (Debian's
// /usr/bin/chromium, driven by playwright-core). It builds three reports
// with the bryo binary named by $BRYO_BIN, opens them from disk (file://)
// and checks what a user sees and does:
//
// - the pairs table holds exactly the pairs of the JSON result, sorts by
//   its columns and filters by name and similarity range;
// - on a pair page, clicking a fragment highlights its partner and brings
//   it into view; the n / p keys step through the fragments;
// - a submission named and filled with markup runs nothing;
// - the overview lists exact copies and links to their pair; on a pair of
//   two-file submissions (-d), a fragment in the second file brings its
//   partner into view;
// - the report of the Python standard library (1,790 files, 250 pairs)
//   stays under 50 MB on disk and loads; its load times are printed, never
//   asserted. With BRYO_REQUIRE_BROWSER=1 a missing python3 or standard
//   library fails the test instead of skipping this part.
//
// Screenshots go to $BRYO_ARTIFACTS (default: target/browser-artifacts).
// Run: BRYO_BIN=target/release/bryo node tests/browser/report.test.js
// (cargo test runs it from crates/bryo-cli/tests/browser.rs).
'use strict';

const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { pathToFileURL } = require('node:url');
const { chromium } = require('playwright-core');

const repo = path.resolve(__dirname, '..', '..');
const bryoBin = path.resolve(process.env.BRYO_BIN || path.join(repo, 'target', 'debug', 'bryo'));
const artifacts = path.resolve(process.env.BRYO_ARTIFACTS || path.join(repo, 'target', 'browser-artifacts'));
const chromiumPath = process.env.BRYO_CHROMIUM || '/usr/bin/chromium';
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bryo-browser-'));

function bryo(args, cwd) {
  execFileSync(bryoBin, args, { cwd, stdio: ['ignore', 'ignore', 'inherit'] });
}

function url(file) {
  return pathToFileURL(file).href;
}

function log(message) {
  process.stdout.write(message + '\n');
}

// A page that records dialogs (alert, confirm…), uncaught errors and
// Content-Security-Policy violations.
async function open(browser, file) {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.dialogs = [];
  page.errors = [];
  page.on('dialog', async (dialog) => {
    page.dialogs.push(dialog.message());
    await dialog.dismiss();
  });
  page.on('pageerror', (error) => page.errors.push(error.message));
  await page.goto(url(file));
  return page;
}

// Whether the element is inside the window and inside its scrolling column.
async function inView(page, selector) {
  return page.$eval(selector, (el) => {
    const r = el.getBoundingClientRect();
    const box = el.closest('section.side').getBoundingClientRect();
    const inWindow = r.top >= 0 && r.bottom <= window.innerHeight;
    const inColumn = r.top >= box.top - 1 && r.top <= box.bottom;
    return inWindow && inColumn;
  });
}

async function pairsTable(browser) {
  const dir = path.join(work, 'small');
  const json = path.join(work, 'small.json');
  const common = ['compare', '-l', 'python', '-d', '-b', 'examples/wordfreq/starter', 'examples/wordfreq/submissions'];
  bryo([...common, '--format', 'html', '-o', dir], repo);
  bryo([...common, '--format', 'json', '-o', json], repo);
  const result = JSON.parse(fs.readFileSync(json, 'utf8'));
  const page = await open(browser, path.join(dir, 'index.html'));

  // Rows against the JSON result.
  const rows = () => page.$$eval('#pairs-table tbody tr:not(.hidden)', (trs) =>
    trs.map((tr) => Array.from(tr.cells).map((td) => td.textContent.trim())));
  const initial = await rows();
  assert.equal(initial.length, result.pairs.length, 'one row per pair');
  const name = (i) => result.submissions[i].name;
  result.pairs.forEach((p, i) => {
    const row = initial[i];
    assert.equal(Number(row[0]), i + 1, 'rank');
    assert.equal(row[1], name(p.a));
    assert.equal(row[3], name(p.b));
    // Percentages are rounded down to a tenth, like the terminal table.
    const down = (value) => `${(Math.floor(value * 10 + 1e-9) / 10).toFixed(1)}%`;
    assert.equal(row[2], down(p.a_percent), `A % of pair ${i + 1}`);
    assert.equal(row[4], down(p.b_percent), `B % of pair ${i + 1}`);
    assert.equal(row[5], down(p.similarity * 100), `similarity of pair ${i + 1}`);
    assert.equal(Number(row[6]), p.lines_matched);
    assert.equal(Number(row[7]), p.longest_fragment);
    assert.equal(row[8], p.identical ? 'identical' : '');
  });
  const links = await page.$$eval('#pairs-table tbody tr td:nth-child(2) a', (as) => as.map((a) => a.getAttribute('href')));
  assert.deepEqual(links, result.pairs.map((_, i) => `pair-${i + 1}.html`), 'a link to every pair');

  // Sorting: similarity descending, then ascending; names ascending.
  const column = (rowsNow, i) => rowsNow.map((r) => parseFloat(r[i]));
  await page.click('#pairs-table th[data-col="5"] button');
  let sims = column(await rows(), 5);
  assert.deepEqual(sims, [...sims].sort((x, y) => y - x), 'similarity descending');
  await page.click('#pairs-table th[data-col="5"] button');
  sims = column(await rows(), 5);
  assert.deepEqual(sims, [...sims].sort((x, y) => x - y), 'similarity ascending');
  await page.click('#pairs-table th[data-col="3"] button');
  const bNames = (await rows()).map((r) => r[3].toLowerCase());
  assert.deepEqual(bNames, [...bNames].sort(), 'submission B ascending');
  await page.click('#pairs-table th[data-col="7"] button');
  const longest = column(await rows(), 7);
  assert.deepEqual(longest, [...longest].sort((x, y) => y - x), 'longest fragment descending');
  await page.click('#pairs-table th[data-col="0"] button');
  assert.deepEqual((await rows()).map((r) => Number(r[0])), result.pairs.map((_, i) => i + 1), 'back to rank order');

  // Filtering by name, then by similarity range.
  await page.fill('#filter-name', 'CAROL');
  const carol = result.pairs.filter((p) => (name(p.a) + name(p.b)).toLowerCase().includes('carol'));
  assert.equal((await rows()).length, carol.length, 'name filter');
  assert.ok(carol.length > 0 && carol.length < result.pairs.length);
  assert.equal(await page.textContent('#shown-count'), `${carol.length} of ${result.pairs.length} pairs`);
  await page.fill('#filter-name', '');
  await page.fill('#filter-min', '50');
  await page.fill('#filter-max', '80');
  const mid = result.pairs.filter((p) => p.similarity * 100 >= 50 && p.similarity * 100 <= 80);
  assert.equal((await rows()).length, mid.length, 'similarity filter');
  assert.ok(mid.length > 0 && mid.length < result.pairs.length);
  await page.fill('#filter-min', '0');
  await page.fill('#filter-max', '100');
  assert.equal((await rows()).length, result.pairs.length);

  fs.mkdirSync(artifacts, { recursive: true });
  await page.screenshot({ path: path.join(artifacts, 'overview.png'), fullPage: true });

  // Open the first pair from the table.
  await Promise.all([page.waitForEvent('load'), page.click('#pairs-table tbody tr:first-child td:nth-child(2) a')]);
  assert.ok(page.url().endsWith('/pair-1.html'));
  const pair = result.pairs[0];
  const fragments = await page.$$eval('#fragment-table tbody tr', (trs) => trs.length);
  assert.equal(fragments, pair.fragments.length);
  assert.ok(fragments >= 2, 'the first pair has several fragments');
  assert.ok((await page.$$('mark.base')).length > 0, 'base code is greyed');
  const linesA = await page.$$eval('#fragment-table tbody tr td:nth-child(2)', (tds) => tds.map((td) => td.textContent));
  pair.fragments.forEach((f, i) => {
    assert.equal(linesA[i], `lines ${f.a.lines[0]}–${f.a.lines[1]}`);
  });
  // The gutter numbers every line.
  const gutter = await page.$eval('#side-a pre.ln', (pre) => pre.textContent.split('\n').length);
  assert.equal(gutter, result.submissions[pair.a].files[0].lines);

  // Every fragment's text is the same span of lines the JSON names.
  for (let i = 0; i < pair.fragments.length; i++) {
    for (const side of ['a', 'b']) {
      const first = await page.$eval(`#${side}${i}`, (el) => {
        const pre = el.closest('pre.code');
        const range = document.createRange();
        range.setStart(pre, 0);
        range.setEndBefore(el);
        return range.toString().split('\n').length;
      });
      assert.equal(first, pair.fragments[i][side].lines[0], `fragment ${i} side ${side} starts on its line`);
    }
  }

  // Clicking a fragment on side A highlights and reveals its partner on B.
  await page.$eval('#side-b', (el) => { el.scrollTop = el.scrollHeight; });
  await page.click('#a1');
  assert.ok(await page.$eval('#b1', (el) => el.classList.contains('active')), 'partner highlighted');
  assert.ok(await page.$eval('#a1', (el) => el.classList.contains('active')));
  assert.ok(await inView(page, '#b1'), 'partner scrolled into view');
  assert.equal(await page.$$eval('mark.f.active', (ms) => new Set(ms.map((m) => m.dataset.f)).size), 1);
  // And the other way round.
  await page.$eval('#side-a', (el) => { el.scrollTop = el.scrollHeight; });
  await page.click('#b0');
  assert.ok(await page.$eval('#a0', (el) => el.classList.contains('active')));
  assert.ok(await inView(page, '#a0'), 'partner on A scrolled into view');

  // Keys: n to the next fragment, p back.
  await page.keyboard.press('n');
  assert.ok(await page.$eval('#a1', (el) => el.classList.contains('active')), 'n: next fragment');
  assert.ok(await inView(page, '#a1') && await inView(page, '#b1'));
  await page.keyboard.press('p');
  assert.ok(await page.$eval('#b0', (el) => el.classList.contains('active')), 'p: previous fragment');
  assert.ok(await page.$eval('#fragment-table tr[data-f="0"]', (el) => el.classList.contains('active')));

  await page.screenshot({ path: path.join(artifacts, 'pair.png') });
  assert.deepEqual(page.errors, [], 'no script errors');
  await page.close();
  log('ok - pairs table, sorting, filtering, pair page, fragment navigation');
}

async function xss(browser) {
  const root = path.join(work, 'xss');
  const evil = '<img src=x onerror=alert(1)>.py';
  const body = 'def greet(name):\n    # </script><script>alert(1)</script>\n' +
    '    banner = "</script><script>alert(1)</script>"\n    for i in range(10):\n' +
    '        if i % 2 == 0:\n            print(banner, name, i * 2 + 1)\n' +
    '        else:\n            print(name.upper(), i - 1)\n    return len(name) + 42\n';
  // Two files per submission (-d); the first long enough that the second
  // starts below the fold.
  const filler = Array.from({ length: 70 }, (_, i) => `setting_${i} = compute(${i}, "${i}")\n`).join('');
  const util = 'def helper(values):\n    total = 0\n    for v in values:\n        total += v * v\n    return total\n';
  for (const who of ['mallory', 'trent']) {
    fs.mkdirSync(path.join(root, 'subs', who), { recursive: true });
    fs.writeFileSync(path.join(root, 'subs', who, evil), body + filler);
    fs.writeFileSync(path.join(root, 'subs', who, 'util.py'), util);
  }
  bryo(['compare', '-l', 'python', '-d', 'subs', '--format', 'html', '-o', 'report'], root);
  for (const file of ['index.html', 'pair-1.html']) {
    const page = await open(browser, path.join(root, 'report', file));
    await page.waitForTimeout(200);
    assert.deepEqual(page.dialogs, [], `${file}: no dialog opened`);
    assert.equal(await page.$$eval('img', (imgs) => imgs.length), 0, `${file}: no injected <img>`);
    const scripts = await page.$$eval('script', (ss) => ss.map((s) => s.getAttribute('src')));
    assert.ok(scripts.every((src) => src === 'bryo.js' || /^files\/s\d+-\d+\.js$/.test(src)), `${file}: only bryo's scripts: ${scripts}`);
    if (file === 'pair-1.html') {
      const heading = await page.textContent('#side-a h3');
      assert.ok(heading.includes(evil), 'the file name is shown as text');
      const code = await page.textContent('#side-a pre.code');
      assert.ok(code.includes('"</script><script>alert(1)</script>"'), 'the code is shown as text');
    }
    assert.deepEqual(page.errors, []);
    await page.close();
  }
  log('ok - hostile names and text run nothing');

  // The two submissions are exact copies: the overview lists the group and
  // links to its pair.
  const index = await open(browser, path.join(root, 'report', 'index.html'));
  const group = await index.textContent('#identical .identical-groups > li .members');
  assert.ok(group.includes('subs/mallory') && group.includes('subs/trent'), `identical group listed: ${group}`);
  assert.match(await index.textContent('#summary'), /1 group of identical submissions/);
  const files = await index.$$eval('#identical table.identical-files tbody tr', (trs) => trs.length);
  assert.equal(files, 2, 'both file contents are listed as identical');
  await Promise.all([index.waitForEvent('load'), index.click('#identical .group-pairs a')]);
  assert.ok(index.url().endsWith('/pair-1.html'), `the link opens the pair: ${index.url()}`);
  assert.equal(await index.textContent('#side-a h2'), 'subs/mallory');
  assert.equal(await index.textContent('#side-b h2'), 'subs/trent');

  // Multi-file submissions: a fragment in the second file of A brings its
  // partner, in the second file of B, into view.
  const second = await index.$$eval('#side-a article.file', (as) => as.length);
  assert.equal(second, 2, 'both files of the submission are shown');
  const inFile = (id) => index.$eval(`#${id}`, (el) => {
    const files = Array.from(el.closest('section.side').querySelectorAll('article.file'));
    return files.indexOf(el.closest('article.file'));
  });
  const fragment = await index.$$eval('#side-a article.file:nth-of-type(2) mark.f', (ms) => ms[0].dataset.f);
  assert.equal(await inFile(`b${fragment}`), 1, 'the partner is in the second file of B');
  await index.$eval('#side-b', (el) => { el.scrollTop = 0; });
  assert.ok(!(await inView(index, `#b${fragment}`)), 'the partner starts out of view');
  await index.click(`#a${fragment}`);
  assert.ok(await index.$eval(`#b${fragment}`, (el) => el.classList.contains('active')), 'partner in the second file highlighted');
  assert.ok(await inView(index, `#b${fragment}`), 'partner in the second file scrolled into view');
  assert.deepEqual(index.errors, []);
  await index.close();
  log('ok - exact copies listed and linked; multi-file pair page');
}

function stdlibFiles(root) {
  const out = [];
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'site-packages') walk(full);
      } else if (entry.isFile() && entry.name.endsWith('.py')) {
        out.push(path.relative(root, full));
      }
    }
  };
  walk(root);
  return out.sort();
}

function dirSize(dir) {
  let total = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    total += entry.isDirectory() ? dirSize(full) : fs.statSync(full).size;
  }
  return total;
}

async function stdlib(browser) {
  const required = process.env.BRYO_REQUIRE_BROWSER === '1';
  let root;
  try {
    root = execFileSync('python3', ['-c', 'import os; print(os.path.dirname(os.__file__))'], { encoding: 'utf8' }).trim();
  } catch (e) {
    assert.ok(!required, `BRYO_REQUIRE_BROWSER=1 but python3 cannot be run: ${e.message}`);
    log('skip - no python3: standard-library report not measured');
    return;
  }
  const files = fs.existsSync(root) ? stdlibFiles(root) : [];
  if (files.length < 1000) {
    assert.ok(!required, `BRYO_REQUIRE_BROWSER=1 but the Python standard library at ${root} has ${files.length} .py files`);
    log(`skip - the Python standard library at ${root} has only ${files.length} .py files`);
    return;
  }
  const list = path.join(work, 'stdlib-files.txt');
  fs.writeFileSync(list, files.join('\n') + '\n');
  const dir = path.join(work, 'stdlib');
  const started = process.hrtime.bigint();
  bryo(['compare', '-l', 'python', '-n', '250', '--files-from', list, '--format', 'html', '-o', dir], root);
  const generation = Number(process.hrtime.bigint() - started) / 1e6;
  const size = dirSize(dir);
  assert.ok(size < 50e6, `the standard-library report is under 50 MB on disk: ${size} bytes`);
  const page = await open(browser, path.join(dir, 'index.html'));
  const rows = await page.$$eval('#pairs-table tbody tr', (trs) => trs.length);
  assert.equal(rows, 250);
  const timing = async (p) => p.evaluate(() => {
    const t = performance.getEntriesByType('navigation')[0];
    return { dcl: t.domContentLoadedEventEnd, load: t.loadEventEnd };
  });
  const index = await timing(page);
  // The page with the most text.
  let biggest = null;
  let most = -1;
  for (let rank = 1; rank <= 250; rank++) {
    const html = fs.readFileSync(path.join(dir, `pair-${rank}.html`), 'utf8');
    const scripts = [...html.matchAll(/<script src="(files\/[^"]+)"/g)].map((m) => m[1]);
    const bytes = scripts.reduce((n, s) => n + fs.statSync(path.join(dir, s)).size, 0);
    if (bytes > most) {
      most = bytes;
      biggest = rank;
    }
  }
  await page.goto(url(path.join(dir, `pair-${biggest}.html`)));
  const pairTiming = await timing(page);
  assert.ok((await page.$$('mark.f')).length > 0, 'the biggest pair page shows its fragments');
  assert.deepEqual(page.errors, []);
  await page.screenshot({ path: path.join(artifacts, 'stdlib-pair.png') });
  await page.close();
  log(`stdlib report: ${files.length} files, 250 pairs, ${(size / 1e6).toFixed(1)} MB on disk, generated in ${(generation / 1000).toFixed(2)} s`);
  log(`stdlib report: index.html DOMContentLoaded ${index.dcl.toFixed(0)} ms, load ${index.load.toFixed(0)} ms`);
  log(`stdlib report: largest pair page (pair-${biggest}.html, ${(most / 1e6).toFixed(2)} MB of text) DOMContentLoaded ${pairTiming.dcl.toFixed(0)} ms, load ${pairTiming.load.toFixed(0)} ms`);
}

(async () => {
  const browser = await chromium.launch({
    executablePath: chromiumPath,
    args: ['--headless', '--no-sandbox', '--disable-gpu'],
  });
  try {
    await pairsTable(browser);
    await xss(browser);
    if (process.env.BRYO_BROWSER_STDLIB !== '0') {
      await stdlib(browser);
    }
  } finally {
    await browser.close();
    fs.rmSync(work, { recursive: true, force: true });
  }
  log(`screenshots in ${artifacts}`);
})().catch((error) => {
  process.stderr.write((error && error.stack) || String(error));
  process.stderr.write('\n');
  process.exit(1);
});
