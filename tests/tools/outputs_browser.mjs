// outputs_browser.mjs: open scorch's outputs in headless Chromium (system
// /usr/bin/chromium driven by playwright-core from build/node_modules) and
// report what a user would see, as one JSON line.
//   node outputs_browser.mjs flame FILE.html TERM [SHOT.png]
//     -> {errors, nodes, samples, matched (percent for TERM), tooltip, zoomed, icicle}
//   node outputs_browser.mjs speedscope FILE.json EXPECT
//     -> {errors, title, found (EXPECT appears in the page), dialogs}
import { createRequire } from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const top = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(path.join(top, 'build', 'package.json'));
const { chromium } = require('playwright-core');

const [mode, file, term, shot] = process.argv.slice(2);
const out = { errors: [] };
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run',
         '--use-gl=swiftshader', '--enable-unsafe-swiftshader', '--allow-file-access-from-files'],
});
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 760 } });
  page.on('console', (m) => { if (m.type() === 'error') out.errors.push('console: ' + m.text()); });
  page.on('pageerror', (e) => out.errors.push('pageerror: ' + e.message));
  page.on('requestfailed', (r) => out.errors.push('requestfailed: ' + r.url()));
  page.on('dialog', async (d) => { out.errors.push('dialog: ' + d.message()); await d.dismiss(); });
  if (mode === 'flame') {
    const t0 = Date.now();
    await page.goto('file://' + path.resolve(file));
    await page.waitForFunction(() => window.scorchFlame !== undefined, null, { timeout: 20000 });
    out.load_ms = Date.now() - t0;
    const info = await page.evaluate(() => ({ nodes: window.scorchFlame.nodes, samples: window.scorchFlame.samples }));
    Object.assign(out, info);
    out.matched = await page.evaluate((t) => window.scorchFlame.search(t), term);
    out.matched_text = await page.textContent('#matched');
    // hover the middle of the bottom row (the root in a flame graph): a tooltip appears
    const box = await page.locator('#fg').boundingBox();
    await page.mouse.move(box.x + box.width / 2, box.y + box.height - 8);
    out.tooltip = await page.evaluate(() => {
      const t = document.getElementById('tip');
      return t.style.display === 'block' ? t.textContent : '';
    });
    out.zoomed = await page.evaluate((t) => window.scorchFlame.zoomTo(t), term);
    if (shot) {
      await page.evaluate(() => window.scorchFlame.search(''));
      await page.evaluate(() => { document.getElementById('reset').click(); });
      await page.mouse.move(box.x + box.width * 0.35, box.y + box.height - 8 - 17 * 3);
      await page.screenshot({ path: shot });
      out.screenshot = shot;
    }
    await page.evaluate(() => window.scorchFlame.setIcicle(true));
    out.icicle = await page.evaluate(() => document.getElementById('invert').checked);
  } else if (mode === 'speedscope') {
    const index = path.join(top, 'build/node_modules/speedscope/dist/release/index.html');
    const b64 = fs.readFileSync(file).toString('base64');
    const js = path.join(os.tmpdir(), `scorch-speedscope-${process.pid}.js`);
    fs.writeFileSync(js, `speedscope.loadFileFromBase64(${JSON.stringify(path.basename(file))}, ${JSON.stringify(b64)})`);
    await page.goto('file://' + index + '#localProfilePath=' + js);
    try {
      await page.waitForFunction((e) => document.body && document.body.innerText.includes(e), term, { timeout: 20000 });
      out.found = true;
    } catch (e) {
      out.found = false;
    }
    await page.waitForTimeout(500);
    out.title = await page.title();
    out.text = (await page.evaluate(() => document.body.innerText)).slice(0, 300);
    if (shot) await page.screenshot({ path: shot });
    fs.unlinkSync(js);
  } else {
    throw new Error('mode: flame | speedscope');
  }
} catch (e) {
  out.errors.push('driver: ' + e.message);
} finally {
  await browser.close();
}
console.log(JSON.stringify(out));
