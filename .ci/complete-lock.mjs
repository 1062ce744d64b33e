// The npm registry reachable from the development machines serves only linux-x64 builds of platform packages, so
// `npm install` here leaves other platforms' optional packages out of package-lock.json, and `npm ci` then refuses
// the lock as out of sync. This adds each missing optional platform package with the os/cpu/libc its name declares,
// which `npm ci` skips on a non-matching machine without fetching it. Run after `npm install`: node .ci/complete-lock.mjs
import { readFileSync, writeFileSync } from 'node:fs';

const path = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(path, 'utf8'));
const packages = lock.packages;
const OS = ['android', 'darwin', 'linux', 'win32', 'freebsd', 'openbsd', 'netbsd', 'sunos', 'aix'];
const CPU = ['arm64', 'x64', 'ia32', 'arm', 'riscv64', 's390x', 'ppc64', 'loong64', 'mips64el'];

function platformOf(name) {
  const parts = name.split('/').pop().split('-');
  const os = parts.find((p) => OS.includes(p) || p === 'windows' || p === 'macos');
  let cpu = parts.find((p) => CPU.includes(p) || p === 'x86_64' || p === 'aarch64' || p === 'armv7' || p === 'arm64ec');
  if (!os || !cpu) return null;
  cpu = { x86_64: 'x64', aarch64: 'arm64', armv7: 'arm', arm64ec: 'arm64' }[cpu] ?? cpu;
  const entry = { os: [{ windows: 'win32', macos: 'darwin' }[os] ?? os], cpu: [cpu] };
  if (parts.includes('musl')) entry.libc = ['musl'];
  else if (parts.includes('gnu') || parts.includes('gnueabihf')) entry.libc = ['glibc'];
  return entry;
}

let added = 0;
for (const [location, pkg] of Object.entries(packages)) {
  for (const [name, range] of Object.entries(pkg.optionalDependencies ?? {})) {
    const base = location === '' ? 'node_modules' : `${location}/node_modules`;
    if (packages[`${base}/${name}`] || packages[`node_modules/${name}`]) continue;
    const platform = platformOf(name);
    if (!platform) continue;
    packages[`node_modules/${name}`] = { version: String(range).replace(/^[\^~=]/, ''), optional: true, ...platform };
    added++;
  }
}
writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
process.stdout.write(`added ${added} optional platform packages to package-lock.json\n`);
