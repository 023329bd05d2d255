import { AppConfig, ConfigError, loadConfig } from '../config/app-config';
import { loadEnvFile } from '../config/env-file';
import { withEncryptionKeys } from '../crypto/development-keys';
import { prepareInfrastructure } from '../database/prepare';
import { StartupError } from '../database/startup-checks';

/**
 * Start-up shared by the API, the worker and the CLI: read `.env` (env-file.ts), validate the configuration, settle the key
 * ring (docs/secrets.md), reach Postgres and Redis, migrate, then run. A known start-up problem is one line on stderr and exit code 1,
 * never a stack trace or a hang.
 */
export async function runProcess(run: (config: AppConfig, started: { envFile: string | null }) => Promise<void>): Promise<void> {
  try {
    const envFile = loadEnvFile();
    const config = withEncryptionKeys(loadConfig(), (line) => process.stderr.write(`${line}\n`));
    await prepareInfrastructure(config);
    await run(config, { envFile });
  } catch (error) {
    if (error instanceof ConfigError || error instanceof StartupError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}

/**
 * SIGTERM or SIGINT closes the app (the HTTP server stops accepting and lets requests in flight
 * finish; Bull lets active jobs finish) and then exits 0. A second signal exits at once.
 */
export function closeOnSignals(app: { close(): Promise<void> }): void {
  let closing = false;
  const onSignal = () => {
    if (closing) process.exit(1);
    closing = true;
    app.close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`shutdown failed: ${(error as Error).message}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}
