import { describe, expect, it } from 'vitest';
import { architectureLayout, foldersForArchitecture, loaderDefaultFolders, TOOLKIT_TARGET } from './architecture.js';
import { HEADER_CATALOG, LIBRARY_CATALOG } from './catalog.js';

describe('architecture layouts', () => {
  it("expands a toolkit's target folder for x64, for arm64 (servers, then Jetson), and drops it where CUDA ships no target", () => {
    const folders = ['lib64', `targets/${TOOLKIT_TARGET}/lib`];
    expect(foldersForArchitecture(folders, 'x64')).toEqual(['lib64', 'targets/x86_64-linux/lib']);
    expect(foldersForArchitecture(folders, 'arm64')).toEqual([
      'lib64',
      'targets/sbsa-linux/lib',
      'targets/aarch64-linux/lib',
    ]);
    expect(foldersForArchitecture(folders, 'riscv64')).toEqual(['lib64']);
    // not an inherited property of the table
    expect(architectureLayout('toString').toolkitTargets).toEqual([]);
  });

  it('names no concrete target folder in the catalog: every one comes from the architecture', () => {
    const lists = [
      ...LIBRARY_CATALOG.map((d) => d.toolkitDirectories),
      ...HEADER_CATALOG.map((d) => d.toolkitDirectories),
    ];
    for (const folder of lists.flat()) expect(folder).not.toMatch(/targets\/(?!<target>)/);
    expect(
      foldersForArchitecture(HEADER_CATALOG.find((d) => d.name === 'cuda')!.toolkitDirectories, 'arm64'),
    ).toContain('targets/sbsa-linux/include');
  });

  it("gives glibc's default folders of each architecture, and Jetson's driver folder on arm64", () => {
    const arm = loaderDefaultFolders('arm64');
    expect(arm.some((f) => f.endsWith('lib/aarch64-linux-gnu'))).toBe(true);
    // /lib and /usr/lib may be one folder (merged /usr): either spelling stands for it
    expect(arm.some((f) => f.endsWith('/lib64'))).toBe(true);
    expect(arm).toContain('/usr/lib/aarch64-linux-gnu/tegra');
    expect(arm.join(' ')).not.toContain('x86_64');
    const x64 = loaderDefaultFolders('x64');
    expect(x64.some((f) => f.endsWith('lib/x86_64-linux-gnu'))).toBe(true);
    expect(x64.join(' ')).not.toContain('aarch64');
    expect(loaderDefaultFolders('riscv64').every((f) => f.endsWith('/lib64'))).toBe(true);
  });
});
