import { useState } from 'react';

/**
 * A code people paste elsewhere (a card's utid, a brand key for a bulk file or the API), shown as
 * text they can select and with a button that copies it.
 */
export function CopyCode({ value, what }: { value: string; what: string }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await window.navigator.clipboard.writeText(value);
      setCopied(true);
      setTimeout(() => setCopied(false), 2_000);
    } catch {
      // No clipboard (an insecure origin, a refused permission): the code stays selectable.
    }
  };
  return (
    <span className="copy-code">
      <code>{value}</code>
      <button type="button" className="secondary small" aria-label={`Copy the ${what} ${value}`} onClick={() => void copy()}>
        {copied ? 'Copied' : 'Copy'}
      </button>
      <span role="status" className="visually-hidden">
        {copied ? `${value} copied` : ''}
      </span>
    </span>
  );
}
