// End-to-end test of `bryo serve`'s web UI in headless Chromium (Debian's
// /usr/bin/chromium, driven by playwright-core), against a server the
// caller started: $BRYO_SERVE_URL (its HTTP address) and $BRYO_SERVE_TOKEN
// (a user's token). It logs in with the token, uploads a zip of a class
// (one directory per student), waits for the job on the page that reloads
// itself, opens the MOSS-style result and bryo's report, and deletes the
// job; it keeps a class in an archive of past terms and compares a new
// upload against it. The result pages are also opened with JavaScript
// disabled.
// Screenshots go to $BRYO_ARTIFACTS (default: target/browser-artifacts).
// cargo test runs it from crates/bryo-cli/tests/serve_ui.rs.
'use strict';

const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { chromium } = require('playwright-core');

const repo = path.resolve(__dirname, '..', '..');
const base = process.env.BRYO_SERVE_URL;
const token = process.env.BRYO_SERVE_TOKEN;
const zipPath = process.env.BRYO_SERVE_ZIP;
const artifacts = path.resolve(process.env.BRYO_ARTIFACTS || path.join(repo, 'target', 'browser-artifacts'));
const chromiumPath = process.env.BRYO_CHROMIUM || '/usr/bin/chromium';

async function main() {
  assert.ok(base && token && zipPath, 'BRYO_SERVE_URL, BRYO_SERVE_TOKEN and BRYO_SERVE_ZIP must be set');
  fs.mkdirSync(artifacts, { recursive: true });
  const browser = await chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox'] });
  try {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));

    // A wrong token is refused; the right one logs in.
    await page.goto(base + '/');
    await page.fill('input[name=token]', 'not-a-token');
    await page.click('button[type=submit]');
    assert.match(await page.textContent('.error'), /Unknown or disabled token/);
    await page.fill('input[name=token]', token);
    await page.click('button[type=submit]');
    await page.waitForURL(base + '/ui/jobs');

    // Upload the class.
    await page.setInputFiles('input[name=file]', zipPath);
    await page.selectOption('select[name=language]', 'python');
    await page.fill('input[name=comment]', 'browser upload');
    await page.click('form.upload button[type=submit]');
    await page.waitForURL(base + '/ui/jobs');
    const row = page.locator('tr[data-job]').first();
    await row.locator('text=MOSS pages').waitFor({ timeout: 60000 });
    assert.equal(await row.locator('.state').textContent(), 'done');
    assert.match(await row.textContent(), /browser upload/);
    await page.screenshot({ path: path.join(artifacts, 'serve-jobs.png') });

    // The MOSS-style result: the planted pair first.
    await row.locator('text=MOSS pages').click();
    await page.waitForLoadState();
    const first = await page.locator('table tr').nth(1).textContent();
    assert.match(first, /cls\/s00 \(\d+%\)/);
    assert.match(first, /cls\/s01 \(\d+%\)/);
    await page.screenshot({ path: path.join(artifacts, 'serve-moss-index.png') });

    // bryo's report opens from the job list too.
    await page.goto(base + '/ui/jobs');
    await page.locator('tr[data-job]').first().locator('text=report').click();
    await page.waitForLoadState();
    assert.match(await page.content(), /cls\/s00/);
    await page.screenshot({ path: path.join(artifacts, 'serve-report.png') });
    const reportUrl = page.url();

    // Keep the class in an archive of past terms, then compare a new
    // upload against it: last term's students are marked with the tag.
    await page.goto(base + '/ui/jobs');
    await page.fill('input[name=name]', 'last term');
    await page.selectOption('form[action="/ui/archives"] select[name=language]', 'python');
    await page.click('form[action="/ui/archives"] button');
    await page.waitForURL(base + '/ui/jobs');
    assert.match(await page.textContent('main'), /last term \(python\)/);
    await page.locator('tr[data-job]').first().locator('form.archive button').click();
    await page.waitForURL(base + '/ui/jobs');
    await page.setInputFiles('input[name=file]', zipPath);
    await page.selectOption('form.upload select[name=archive]', { label: 'last term (python)' });
    await page.click('form.upload button[type=submit]');
    await page.waitForURL(base + '/ui/jobs');
    const newest = page.locator('tr[data-job]').first();
    await newest.locator('text=MOSS pages').waitFor({ timeout: 60000 });
    await newest.locator('text=MOSS pages').click();
    await page.waitForLoadState();
    assert.match(await page.textContent('table'), /cls\/s00 \[browser upload\]/);
    await page.goto(base + '/ui/jobs');
    await page.locator('tr[data-job]').first().locator('button', { hasText: 'Delete' }).click();
    await page.waitForURL(base + '/ui/jobs');

    // Without JavaScript, the result pages still show the ranking.
    const nojs = await browser.newContext({ javaScriptEnabled: false });
    const plain = await nojs.newPage();
    await plain.goto(reportUrl.replace(/report\/index\.html$/, ''));
    assert.match(await plain.locator('table tr').nth(1).textContent(), /cls\/s00/);
    await plain.goto(reportUrl.replace(/report\/index\.html$/, 'match0-top.html'));
    assert.ok((await plain.locator('table tr').count()) >= 2);
    await nojs.close();

    // Delete it: the row goes and the URL stops working.
    await page.goto(base + '/ui/jobs');
    await page.locator('tr[data-job]').first().locator('button', { hasText: 'Delete' }).click();
    await page.waitForURL(base + '/ui/jobs');
    assert.equal(await page.locator('tr[data-job]').count(), 0);
    const gone = await page.goto(reportUrl);
    assert.equal(gone.status(), 404);
    assert.deepEqual(errors, []);
    process.stdout.write('serve UI: login, upload, progress, report, delete: ok\n');
  } finally {
    await browser.close();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
