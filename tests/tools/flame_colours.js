// flame_colours.js PAGE.html: run a `scorch flame` page's script against a
// stub canvas (no browser) and print "boxes N offcpu M": M boxes filled from
// the off-CPU palette (r < 95, b >= 205: no other palette of the page has
// that). Used by tests/e2e/offcpu.sh.
const fs = require("fs");
const html = fs.readFileSync(process.argv[2], "utf8");
const js = html.slice(html.indexOf("<script>") + 8, html.lastIndexOf("</script>"));
const fills = [];
const ctx = {
  setTransform() {}, clearRect() {}, strokeRect() {}, fillText() {},
  measureText() { return { width: 70 }; },
  fillRect() { fills.push(this.fillStyle); },
};
const el = () => ({
  style: {}, textContent: "", checked: false, value: "",
  appendChild() {}, addEventListener() {}, getContext() { return ctx; },
  parentElement: { clientWidth: 1000 }, classList: { add() {}, remove() {} },
});
global.document = { documentElement: { scrollHeight: 0 }, getElementById: el, createElement: el,
  querySelector: el, addEventListener() {}, title: "" };
global.window = { scrollTo() {}, devicePixelRatio: 1, addEventListener() {}, location: { hash: "" } };
global.location = window.location;
global.history = { replaceState() {} };
global.requestAnimationFrame = (f) => f();
(0, eval)(js);
let off = 0;
for (const f of fills) {
  const m = /^rgb\((\d+),(\d+),(\d+)\)$/.exec(f);
  if (m && +m[1] < 95 && +m[3] >= 205) off++;
}
console.log("boxes " + fills.length + " offcpu " + off);
