import { useCallback, useState } from 'react';

/**
 * One Idempotency-Key per form submission: a double click or a retry after a network error sends
 * the same key, so the API creates one reward; `renew` after a success starts the next submission.
 */
export function useIdempotencyKey(): [string, () => void] {
  const [key, setKey] = useState(() => crypto.randomUUID());
  const renew = useCallback(() => setKey(crypto.randomUUID()), []);
  return [key, renew];
}
