#!/usr/bin/env node
// Copies the protocol spec (docs/protocols.md of the repository) into the
// package, which ships it: the README points third-party authors at it.
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const pkg = join(dirname(fileURLToPath(import.meta.url)), '..');
const spec = join(pkg, '..', '..', 'docs', 'protocols.md');
if (existsSync(spec)) {
  mkdirSync(join(pkg, 'docs'), { recursive: true });
  copyFileSync(spec, join(pkg, 'docs', 'protocols.md'));
}
