import { useEffect, useRef, useState, type ReactNode } from 'react';

/**
 * A button that asks once more before an action that cannot be undone. Asking moves focus to the
 * "Yes" button; Escape or "Keep it" puts the question away and focus back on the button
 * (docs/dashboard.md, Smaller confirmations).
 */
export function ConfirmButton({ label, question, onConfirm, disabled, danger }: { label: string; question: ReactNode; onConfirm: () => void; disabled?: boolean; danger?: boolean }) {
  const [asking, setAsking] = useState(false);
  const trigger = useRef<HTMLButtonElement>(null);
  const yes = useRef<HTMLButtonElement>(null);
  const answered = useRef(false);
  useEffect(() => {
    if (asking) yes.current?.focus();
    else if (answered.current) {
      answered.current = false;
      trigger.current?.focus();
    }
  }, [asking]);
  const putAway = () => {
    answered.current = true;
    setAsking(false);
  };
  if (!asking) {
    return (
      <button ref={trigger} type="button" className={danger ? 'danger' : undefined} disabled={disabled} onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  }
  return (
    <span
      role="group"
      aria-label={`Confirm: ${label}`}
      className="confirm"
      onKeyDown={(event) => {
        if (event.key === 'Escape') {
          event.stopPropagation();
          putAway();
        }
      }}
    >
      <span>{question}</span>
      <button
        ref={yes}
        type="button"
        className={danger ? 'danger' : undefined}
        onClick={() => {
          putAway();
          onConfirm();
        }}
      >
        Yes, {label.toLowerCase()}
      </button>
      <button type="button" className="secondary" onClick={putAway}>
        Keep it
      </button>
    </span>
  );
}
