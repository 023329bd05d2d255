import { useId, type SelectHTMLAttributes } from 'react';

/** A labelled choice among `options`, with the API's message for it (`issues[].path`) shown beside it (`aria-invalid`, described by it), as Field does for inputs. */
export function SelectField({ label, error, options, ...select }: { label: string; error?: string; options: readonly string[] } & SelectHTMLAttributes<HTMLSelectElement>) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} aria-invalid={error ? true : undefined} aria-describedby={error ? `${id}-error` : undefined} {...select}>
        {options.map((option) => (
          <option key={option} value={option}>
            {option}
          </option>
        ))}
      </select>
      {error && (
        <small id={`${id}-error`} className="field-error">
          {error}
        </small>
      )}
    </div>
  );
}
