import { AppConfig, ConfigError, loadConfig } from '../config/app-config';
import { prepareInfrastructure } from '../database/prepare';
import { StartupError } from '../database/startup-checks';

/**
 * Start-up shared by the API, the worker and the CLI: validate the configuration, reach Postgres
 * and Redis, migrate, then run. A known start-up problem is one line on stderr and exit code 1,
 * never a stack trace or a hang.
 */
export async function runProcess(run: (config: AppConfig) => Promise<void>): Promise<void> {
  try {
    const config = loadConfig();
    await prepareInfrastructure(config);
    await run(config);
  } catch (error) {
    if (error instanceof ConfigError || error instanceof StartupError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}
