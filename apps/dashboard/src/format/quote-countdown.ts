/**
 * The seconds a quote has left, counted on the page's clock (docs/dashboard.md, Currencies).
 *
 * `expiresAt` is a time on the service's clock. Compared with the page's clock as it stands, a
 * browser whose clock runs a few minutes ahead would see every quote expired at once (and one behind
 * would offer Confirm after the quote had lapsed). So the answer's `Date` header, the service's clock
 * when it answered, places `expiresAt` on the page's clock: the deadline is as far after the moment
 * the page received the quote as `expiresAt` was after that `Date`.
 */
export function quoteDeadline(expiresAt: string, receivedAt: number, serverDate: string | null): number {
  const expires = Date.parse(expiresAt);
  const server = serverDate === null ? Number.NaN : Date.parse(serverDate);
  if (Number.isNaN(server)) return expires;
  // `Date` is cut to the whole second: the service's clock read up to 1 s more when it answered.
  // Counting from the latest it can have been errs on the side of less time, never more.
  return receivedAt + (expires - (server + 1000));
}

/**
 * Whole seconds left until `deadline` at `now` (both on the page's clock), rounded down; 0 once less
 * than a second is left, which is when the page calls the quote expired: a confirmation sent in the
 * last second could arrive after it.
 */
export function secondsLeft(deadline: number, now: number): number {
  return Math.max(0, Math.floor((deadline - now) / 1000));
}
