// outputs_browser.mjs: open scorch's outputs in headless Chromium (system
// /usr/bin/chromium driven by playwright-core from build/node_modules) and
// report what a user would see, as one JSON line.
//   node outputs_browser.mjs flame FILE.html TERM [SHOT.png]
//     -> {errors, nodes, samples, matched (percent for TERM), tooltip, zoomed, icicle}
//   node outputs_browser.mjs flamediff FILE.html FUNC [SHOT.png]
//     -> {errors, nodes, box (FUNC's widest box), delta, color, pixel ([r,g,b]
//         read back from the canvas inside the box), tooltip (hovering it),
//         matched, zoomed}
//   node outputs_browser.mjs flametall FILE.html TERM SHOT
//     a graph taller than its 1400x900 window -> {errors, rows (TERM's
//     weight per depth, % of all), matched, and for the window on load
//     (load_*) and after the graph and the page were scrolled (scrolled_*):
//     bar_top (the toolbar's top edge), bar_shown (what is drawn at the
//     toolbar's middle is the toolbar), base_shown (the graph's root row
//     lies between the toolbar and the window's bottom edge), page_height,
//     graph_scroll (how far the graph is scrolled)}; screenshots
//     SHOT-load.png and SHOT-scrolled.png
//   node outputs_browser.mjs flamelines FILE.html FUNC [SHOT.png]
//     clicks FUNC's widest box -> {errors, box, shown (the line panel is
//     visible), heading, rows ([share, samples, file:line, text] as shown),
//     closed (the panel hides on its close button)}
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
    // hover the middle of the bottom row (the root in a flame graph, kept in
    // view): a tooltip appears
    let box = await page.locator('#fg').boundingBox();
    out.base_visible = box.y + box.height <= 760 + 1;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height - 8);
    out.tooltip = await page.evaluate(() => {
      const t = document.getElementById('tip');
      return t.style.display === 'block' ? t.textContent : '';
    });
    out.zoomed = await page.evaluate((t) => window.scorchFlame.zoomTo(t), term);
    if (shot) {
      await page.evaluate((t) => window.scorchFlame.search(t), process.env.SHOT_SEARCH || '');
      await page.evaluate(() => window.scorchFlame.reset());
      box = await page.locator('#fg').boundingBox();
      await page.mouse.move(box.x + box.width * (parseFloat(process.env.SHOT_X || '0.35')),
                            box.y + box.height - 8 - 17 * parseInt(process.env.SHOT_ROW || '3'));
      const h = Math.min(760, Math.ceil(box.y + box.height + 12));
      await page.screenshot({ path: shot, clip: { x: 0, y: 0, width: 1280, height: Math.max(h, 300) } });
      out.screenshot = shot;
    }
    await page.evaluate(() => window.scorchFlame.setIcicle(true));
    out.icicle = await page.evaluate(() => document.getElementById('invert').checked);
  } else if (mode === 'flamelines') {
    await page.goto('file://' + path.resolve(file));
    await page.waitForFunction(() => window.scorchFlame !== undefined, null, { timeout: 20000 });
    out.hidden_at_load = await page.evaluate(() => getComputedStyle(document.getElementById('lines')).display === 'none');
    const b = await page.evaluate((t) => window.scorchFlame.box('^(' + t + ')$'), term);
    out.box = b;
    if (b) {
      const cb = await page.locator('#fg').boundingBox();
      await page.mouse.click(cb.x + b.x + b.w / 2, cb.y + b.y + b.h / 2);
      await page.waitForFunction(() => getComputedStyle(document.getElementById('lines')).display !== 'none', null, { timeout: 5000 }).catch(() => {});
      Object.assign(out, await page.evaluate(() => {
        const el = document.getElementById('lines');
        return {
          shown: getComputedStyle(el).display !== 'none' && el.getBoundingClientRect().height > 0,
          heading: el.querySelector('h2') ? el.querySelector('h2').firstChild.textContent : '',
          rows: [...el.querySelectorAll('tr')].map((tr) => [...tr.cells].map((c) => c.textContent)),
        };
      }));
      if (shot) await page.screenshot({ path: shot });
      await page.click('#lines-close').catch(() => {});
      out.closed = await page.evaluate(() => getComputedStyle(document.getElementById('lines')).display === 'none');
    }
  } else if (mode === 'flamediff') {
    const t0 = Date.now();
    await page.goto('file://' + path.resolve(file));
    await page.waitForFunction(() => window.scorchFlame !== undefined, null, { timeout: 20000 });
    out.load_ms = Date.now() - t0;
    out.nodes = await page.evaluate(() => window.scorchFlame.nodes);
    const b = await page.evaluate((t) => window.scorchFlame.diffBox(t), term);
    out.box = b;
    if (b) {
      out.delta = b.delta;
      out.color = b.color;
      // what was drawn: a pixel right of the label, away from the edges
      out.pixel = await page.evaluate((b) => {
        const c = document.getElementById('fg');
        const dpr = c.width / c.getBoundingClientRect().width;
        const d = c.getContext('2d').getImageData(Math.floor((b.x + b.w * 0.75) * dpr),
                                                  Math.floor((b.y + b.h / 2) * dpr), 1, 1).data;
        return [d[0], d[1], d[2]];
      }, b);
      const cb = await page.locator('#fg').boundingBox();
      await page.mouse.move(cb.x + b.x + b.w / 2, cb.y + b.y + b.h / 2);
      out.tooltip = await page.evaluate(() => {
        const t = document.getElementById('tip');
        return t.style.display === 'block' ? t.textContent : '';
      });
      if (shot) {
        // down to the graph's base or the tooltip's bottom, whichever is lower
        const tb = await page.locator('#tip').boundingBox();
        const h = Math.min(760, Math.ceil(Math.max(cb.y + cb.height, tb ? tb.y + tb.height : 0) + 12));
        await page.screenshot({ path: shot, clip: { x: 0, y: 0, width: 1280, height: Math.max(h, 300) } });
        out.screenshot = shot;
      }
    }
    out.matched = await page.evaluate((t) => window.scorchFlame.search(t), term);
    out.zoomed = await page.evaluate((t) => window.scorchFlame.zoomTo(t), term);
  } else if (mode === 'flametall') {
    await page.setViewportSize({ width: 1400, height: 900 });
    await page.goto('file://' + path.resolve(file));
    await page.waitForFunction(() => window.scorchFlame !== undefined, null, { timeout: 20000 });
    out.nodes = await page.evaluate(() => window.scorchFlame.nodes);
    out.rows = await page.evaluate((t) => window.scorchFlame.rows(t), term);
    const look = (when) => page.evaluate((when) => {
      const b = document.getElementById('bar').getBoundingClientRect();
      const c = document.getElementById('fg').getBoundingClientRect();
      const at = document.elementFromPoint(b.left + b.width / 2, (b.top + b.bottom) / 2);
      const base = c.bottom - 9; /* the middle of the root row, 17 px tall, 2 px above the edge */
      const r = {};
      r[when + '_bar_top'] = b.top;
      r[when + '_bar_shown'] = !!at && document.getElementById('bar').contains(at);
      r[when + '_base_shown'] = base > b.bottom && base < window.innerHeight;
      r[when + '_page_height'] = document.documentElement.scrollHeight;
      r[when + '_graph_scroll'] = document.getElementById('wrap').scrollTop;
      return r;
    }, when);
    Object.assign(out, await look('load'));
    await page.screenshot({ path: shot + '-load.png' });
    // scroll as a user would: the wheel over the graph, then the page
    await page.mouse.move(700, 500);
    await page.mouse.wheel(0, -1200);
    await page.waitForFunction((y) => document.getElementById('wrap').scrollTop < y, out.load_graph_scroll, { timeout: 5000 }).catch(() => {});
    await page.evaluate(() => window.scrollTo(0, 100000));
    Object.assign(out, await look('scrolled'));
    await page.screenshot({ path: shot + '-scrolled.png' });
    out.matched = await page.evaluate((t) => window.scorchFlame.search(t), term);
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
    throw new Error('mode: flame | flamediff | flametall | speedscope');
  }
} catch (e) {
  out.errors.push('driver: ' + e.message);
} finally {
  await browser.close();
}
console.log(JSON.stringify(out));
