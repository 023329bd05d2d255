/// <reference types="vitest/config" />
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { contractEnums } from './contract-enums.mts';

// The dashboard is served by the API process under /dashboard (apps/api/src/dashboard-static.ts);
// the build needs no network and ships no outside resource (no CDN, no remote fonts).
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/dashboard/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'react' } },
  // The lists the app offers (webhook events, statuses, audit actions, roles) come from openapi*.yaml.
  plugins: [contractEnums()],
  // The types generated from openapi.yaml and openapi.dashboard.yaml (npm run openapi).
  resolve: { alias: { '@client': fileURLToPath(new URL('../../clients/typescript', import.meta.url)) } },
  // Tests never leave the machine: the outbound-connection guard of the Jest suite (docs/operations.md).
  test: { setupFiles: [fileURLToPath(new URL('../../test/support/outbound-guard.vitest.mjs', import.meta.url))] },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsDir: 'assets',
    sourcemap: false,
    rolldownOptions: {
      // React Query and React Router mark modules "use client" for server-rendering frameworks; a
      // browser-only bundle has no use for the directive, so the warning about dropping it is noise.
      // The timing note names the contract read (apps/dashboard/contract-enums.mts): parsing openapi.yaml
      // takes about a second of a build of a few, which is expected, not a fault to report each time.
      onwarn(warning, warn) {
        if (warning.code !== 'MODULE_LEVEL_DIRECTIVE' && warning.code !== 'PLUGIN_TIMINGS') warn(warning);
      },
    },
  },
});
