// strings built and read char by char: V8's String::Get dispatch
function churn(n) {
  let s = '', h = 0;
  for (let i = 0; i < n; i++) {
    s += String.fromCharCode(97 + (i % 26));
    if (s.length > 4096) s = s.slice(2048);
    h = (h * 31 + s.charCodeAt(i % s.length)) | 0;
  }
  return h;
}
let t = 0;
for (let r = 0; r < 40; r++) t ^= churn(100000);
console.log(t);
