import { useLayoutEffect, useRef } from 'react';
import { useNavigationType, useSearchParams } from 'react-router';

/** Parameters of the address to change: a value sets one, `undefined` or '' removes it. */
export type ParamChanges = Record<string, string | undefined>;

/**
 * The page's search parameters (its filters, docs/dashboard.md), and `update`, which changes some of
 * them and keeps the others.
 *
 * `update` builds on the address last asked for, not on the one last rendered: the router renders a
 * new address later (in a transition, which other renders may pass), so two changes made before it,
 * each built on the rendered address, would keep only the second. `setSearchParams(prev => …)` does
 * not help: its `prev` is the rendered parameters too (react-router 7). One call per page: two would
 * each keep their own record of what was asked for.
 */
export function useAddressParams(): [URLSearchParams, (changes: ParamChanges) => void] {
  const [params, setParams] = useSearchParams();
  // Back and Forward (POP) put the user on an address of their choosing, even one this page asked for earlier.
  const navigation = useNavigationType();
  const shown = useRef(params);
  // The addresses asked for and not all rendered yet: the last, and every one since the page last
  // caught up, so that an address on the way to the last is told from one the page did not ask for
  // (Back, a link), after which the rendered address is the one to build on again.
  const pending = useRef<{ last: URLSearchParams; asked: Set<string> } | null>(null);
  useLayoutEffect(() => {
    shown.current = params;
    const search = params.toString();
    if (pending.current && (navigation === 'POP' || pending.current.last.toString() === search || !pending.current.asked.has(search))) pending.current = null;
  }, [params, navigation]);

  const update = (changes: ParamChanges) => {
    const next = new URLSearchParams(pending.current?.last ?? shown.current);
    for (const [name, value] of Object.entries(changes)) {
      if (value) next.set(name, value);
      else next.delete(name);
    }
    pending.current = { last: next, asked: new Set(pending.current?.asked).add(next.toString()) };
    setParams(next);
  };
  return [params, update];
}
