import type { ReactNode } from 'react';

/** The loading, empty and error states every list and page shows. */
export function StatusMessage({ kind, children }: { kind: 'loading' | 'empty' | 'error'; children: ReactNode }) {
  return (
    <p className={`status status-${kind}`} role={kind === 'error' ? 'alert' : 'status'} aria-busy={kind === 'loading'}>
      {children}
    </p>
  );
}
