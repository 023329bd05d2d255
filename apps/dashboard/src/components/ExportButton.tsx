import { useState } from 'react';

/** A button that runs a CSV export and shows how far it got. */
export function ExportButton({ label, run }: { label: string; run: (progress: (done: number, total: number) => void) => Promise<void> }) {
  const [state, setState] = useState<{ done: number; total: number } | null>(null);
  const [error, setError] = useState<string | null>(null);
  return (
    <span className="export">
      <button
        type="button"
        className="secondary"
        disabled={state !== null}
        onClick={() => {
          setError(null);
          setState({ done: 0, total: 0 });
          run((done, total) => setState({ done, total })).then(
            () => setState(null),
            (e: unknown) => {
              setState(null);
              setError(e instanceof Error ? e.message : 'The export failed.');
            },
          );
        }}
      >
        {label}
      </button>
      {state && (
        <span role="status">
          {state.done} of {state.total} rows
        </span>
      )}
      {error && (
        <span role="alert" className="form-error">
          {error}
        </span>
      )}
    </span>
  );
}
