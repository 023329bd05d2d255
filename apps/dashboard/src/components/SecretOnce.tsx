import { useState } from 'react';

/** A secret the service shows only once: visible, copyable, and gone when dismissed. */
export function SecretOnce({ label, value, onDone }: { label: string; value: string; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  return (
    <section className="secret" aria-label={label}>
      <h2>{label}</h2>
      <p>Copy it now: it is shown only this once.</p>
      <output aria-label="Secret">
        <code>{value}</code>
      </output>
      <div className="actions">
        <button
          type="button"
          onClick={() =>
            void navigator.clipboard.writeText(value).then(
              () => setCopied(true),
              () => setCopied(false),
            )
          }
        >
          Copy
        </button>
        <button type="button" className="secondary" onClick={onDone}>
          Done
        </button>
        {copied && <span role="status">Copied.</span>}
      </div>
    </section>
  );
}
