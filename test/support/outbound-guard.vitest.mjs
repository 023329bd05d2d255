// The dashboard's Vitest files run under the same outbound-connection guard as the Jest suite
// (test/support/outbound-guard.js; docs/operations.md, "Tests are hermetic"): a connection or DNS
// look-up past the loopback is refused before any packet and fails the test that made it.
import { createRequire } from 'node:module';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';

const guard = createRequire(import.meta.url)('./outbound-guard.js');

let owner;
beforeAll(() => {
  owner = expect.getState().testPath;
  guard.install().owner = owner;
});
const check = () => {
  const refused = guard.takeRefusals(owner);
  if (refused.length) throw guard.failure(refused);
};
afterEach(check);
afterAll(check);
