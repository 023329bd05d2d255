import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The page's only script (assets/redeem.js, linted as browser code), read once when the app starts
 * and served as it is at REDEEM_SCRIPT_PATH. `nest build` copies it beside this module (nest-cli.json, assets).
 */
export const REDEEM_SCRIPT = readFileSync(join(__dirname, 'assets', 'redeem.js'), 'utf8');
