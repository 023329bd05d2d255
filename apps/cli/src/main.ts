import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { NestFactory } from '@nestjs/core';
import { ApiError, runProcess } from '@app/core';
import { CliModule } from './cli.module';
import { COMMANDS } from './commands';

/** Operator commands: each prints one JSON object on stdout, or a message on stderr and exits non-zero. */
function fail(message: string, code = 1): never {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

const [name, ...args] = process.argv.slice(2);
const command = COMMANDS[name];
if (!command) {
  fail(`usage: npm run cli -- <command> [flags]\ncommands:\n${Object.values(COMMANDS).map((c) => `  ${c.usage}`).join('\n')}`, 2);
}
let flags: Record<string, string | string[] | undefined>;
try {
  flags = parseArgs({ args, options: command.options, strict: true }).values;
} catch (error) {
  fail(`${(error as Error).message}\nusage: ${command.usage}`, 2);
}
const missing = command.required.filter((flag) => !flags[flag]);
if (missing.length) fail(`missing ${missing.map((f) => `--${f}`).join(', ')}\nusage: ${command.usage}`, 2);

void runProcess(async (config) => {
  const app = await NestFactory.createApplicationContext(CliModule.register({ ...config, logLevel: 'silent' }), {
    logger: false,
  });
  try {
    const result = await command.run(app, flags);
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } catch (error) {
    fail(error instanceof ApiError ? error.message : `${name} failed: ${(error as Error).message}`);
  } finally {
    await app.close();
  }
});
