import { useState, type ReactNode } from 'react';

/** A button that asks once more before an action that cannot be undone. */
export function ConfirmButton({ label, question, onConfirm, disabled, danger }: { label: string; question: ReactNode; onConfirm: () => void; disabled?: boolean; danger?: boolean }) {
  const [asking, setAsking] = useState(false);
  if (!asking) {
    return (
      <button type="button" className={danger ? 'danger' : undefined} disabled={disabled} onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  }
  return (
    <span role="group" aria-label={`Confirm: ${label}`} className="confirm">
      <span>{question}</span>
      <button
        type="button"
        className={danger ? 'danger' : undefined}
        onClick={() => {
          setAsking(false);
          onConfirm();
        }}
      >
        Yes, {label.toLowerCase()}
      </button>
      <button type="button" className="secondary" onClick={() => setAsking(false)}>
        Keep it
      </button>
    </span>
  );
}
