import { PinoLogger } from 'nestjs-pino';
import { symbols } from 'pino';

/**
 * Every line the apps' logger writes while a test runs, instead of writing it: `lines` is emptied
 * before each test and the logger's stream restored after it. For tests of what the log holds
 * (docs/operations.md, Logging policy); the app must log at the level in question (`LOG_LEVEL`).
 */
export function captureLogLines(): { readonly lines: string[] } {
  const captured = { lines: [] as string[] };
  beforeEach(() => {
    const stream = (PinoLogger.root as unknown as Record<symbol, { write(line: string): boolean }>)[symbols.streamSym];
    captured.lines = [];
    jest.spyOn(stream, 'write').mockImplementation((line: string) => {
      captured.lines.push(String(line));
      return true;
    });
  });
  afterEach(() => jest.restoreAllMocks());
  return captured;
}
