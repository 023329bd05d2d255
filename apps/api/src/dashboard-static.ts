import type { NestExpressApplication } from '@nestjs/platform-express';
import type { NextFunction, Request, Response } from 'express';
import { registerSecretPath } from '@app/core';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The repository root: the nearest folder above this file with a package.json (from src/ or dist/ alike). */
function repositoryRoot(from: string): string {
  let dir = from;
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

/** Where the Vite build of apps/dashboard lands (`npm start` builds it when missing). */
export const DASHBOARD_BUILD_DIR = join(repositoryRoot(__dirname), 'apps/dashboard/dist');

const NOT_BUILT = '<!doctype html><title>Dashboard not built</title><p>The dashboard has not been built: run <code>npm start</code> (it builds what is missing) or <code>npm run build:dashboard</code>.</p>';

/**
 * Serves the merchant dashboard under /dashboard: hashed assets with a year-long immutable cache,
 * and the app's shell (no-cache, so a deploy is seen at once) for /dashboard and every deep link
 * under it, except the dashboard's own JSON API at /dashboard/api.
 */
export function serveDashboard(app: NestExpressApplication, buildDir = DASHBOARD_BUILD_DIR): void {
  // The links of the invitation and password-reset e-mails carry their token (docs/operations.md, Logging
  // policy). The shell is answered before the request logger sees it today; these keep it out of the
  // log should that order change.
  registerSecretPath('/dashboard/invitations/:token');
  registerSecretPath('/dashboard/reset-password/:token');
  app.useStaticAssets(join(buildDir, 'assets'), {
    prefix: '/dashboard/assets/',
    immutable: true,
    maxAge: '365d',
    index: false,
  });
  const shellPath = join(buildDir, 'index.html');
  let shell: { html: string; mtimeMs: number } | null = null;
  app.use((req: Request, res: Response, next: NextFunction) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    const path = req.path;
    if (path !== '/dashboard' && !path.startsWith('/dashboard/')) return next();
    if (path === '/dashboard/api' || path.startsWith('/dashboard/api/')) return next();
    if (path.startsWith('/dashboard/assets/')) {
      res.status(404).type('text').send('Not found');
      return;
    }
    // Kept in memory, and read again when a new build replaces it (its assets' names change with it).
    const mtimeMs = existsSync(shellPath) ? statSync(shellPath).mtimeMs : null;
    if (mtimeMs !== null && shell?.mtimeMs !== mtimeMs) shell = { html: readFileSync(shellPath, 'utf8'), mtimeMs };
    res.setHeader('Cache-Control', 'no-cache');
    if (mtimeMs === null || !shell) {
      res.status(503).type('html').send(NOT_BUILT);
      return;
    }
    res.type('html').send(shell.html);
  });
}
