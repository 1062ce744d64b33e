import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// patches/ holds patch-package's patches, applied by `npm install`/`npm ci` (the postinstall script); a patch is made
// against one exact version, so a version bump must come with the patch redone (docs/decisions.md: patched dependencies).
const root = new URL('../../', import.meta.url);
const manifest = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as {
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

describe('patched dependencies', () => {
  it('names in each patch the exact version package.json pins, and applies the patches at install', () => {
    const patches = readdirSync(new URL('patches/', root)).filter((name) => name.endsWith('.patch'));
    expect(patches).toContain(`pdfjs-dist+${manifest.dependencies['pdfjs-dist']}.patch`);
    for (const name of patches) {
      const [, dependency, version] = /^(.+)\+([^+]+)\.patch$/u.exec(name) ?? [];
      expect({ name, version: manifest.dependencies[dependency!] ?? manifest.devDependencies[dependency!] }).toEqual({ name, version });
    }
    expect(manifest.scripts.postinstall).toBe('patch-package --error-on-fail');
    const patch_package = manifest.devDependencies['patch-package'];
    expect(patch_package).toMatch(/^\d+\.\d+\.\d+$/u);
    // the production image installs without devDependencies and applies the patches with the same version through npx
    expect(readFileSync(new URL('docker-compose.yml', root), 'utf8')).toContain(`npx --yes patch-package@${patch_package} --error-on-fail`);
  });
});
