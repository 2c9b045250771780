// The Node.js versions Marquee runs on (package.json "engines"): 20.19 or later on the 20 line,
// or 22.12 and later. The floors come from the dependencies (undici 7 needs 20.18.1, the test
// toolchain 20.19, zlib.crc32 20.15). Imported first by bin/cli.ts, so an older Node stops here
// with one line instead of failing somewhere inside a dependency.
const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
const supported = (major === 20 && minor >= 19) || (major === 22 && minor >= 12) || major > 22;
if (!supported) {
  process.stderr.write(`marquee: Node.js ${process.versions.node} is not supported; use Node.js 22.12 or later (or 20.19 or later on the 20 line)\n`);
  process.exit(2);
}
