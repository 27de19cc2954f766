import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * A file or folder of the project (`docs/…`, `web/dist`), found from this module upwards: the same
 * whether the code runs from src/ (tsx, tests), dist/ (npm start) or a copy built elsewhere (the bench).
 * Falls back to the path beside the package root the module would have in src/ or dist/.
 */
export function projectPath(relative: string): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  for (let dir = here; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, relative);
    if (existsSync(candidate)) return candidate;
    if (path.dirname(dir) === dir) return path.join(here, '..', '..', relative);
  }
}
