// The Node.js versions Marquee runs on (package.json "engines": the maintained lines 22, 24 and
// 26, the current LTS; and 20.19 or later on the 20 line, past its end of life, while machines
// still carry it). Here only the floors are enforced, so a newer line is not refused before it is
// listed. The floors come from the dependencies (undici 7 needs 20.18.1, the test toolchain 20.19,
// zlib.crc32 20.15). Imported first by bin/cli.ts, so an older Node stops here
// with one line instead of failing somewhere inside a dependency.
const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
const supported = (major === 20 && minor >= 19) || (major === 22 && minor >= 12) || major > 22;
if (!supported) {
  process.stderr.write(`marquee: Node.js ${process.versions.node} is not supported; use Node.js 26 (the current LTS), 24, or 22.12 or later\n`);
  process.exit(2);
}
