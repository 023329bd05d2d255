import { useId, useState, type ReactNode } from 'react';

export interface CheckboxOption {
  value: string;
  /** What the checkbox is labelled with (its accessible name). */
  label: ReactNode;
  /** Text the filter matches, lower-cased here (a name and a code, say). */
  searchText: string;
}

/** From this many options on, a list gets its filter box (shorter lists are read at a glance). */
const FILTER_FROM = 8;

/**
 * A fieldset of checkboxes that stays usable when long (docs/dashboard.md, Forms): a filter box,
 * "Select all" and "Select none" acting on the options the filter shows, and a count of what is
 * ticked, announced politely as it changes.
 */
export function CheckboxList({
  legend,
  options,
  selected,
  onChange,
  filterLabel = 'Filter',
  after,
}: {
  legend: ReactNode;
  options: CheckboxOption[];
  selected: string[];
  onChange: (values: string[]) => void;
  filterLabel?: string;
  /** Shown under the list (a field error, say). */
  after?: ReactNode;
}) {
  const id = useId();
  const [filter, setFilter] = useState('');
  const needle = filter.trim().toLowerCase();
  const shown = needle ? options.filter((o) => o.searchText.toLowerCase().includes(needle)) : options;
  const shownValues = new Set(shown.map((o) => o.value));
  const toggle = (value: string, on: boolean) => onChange(on ? [...selected, value] : selected.filter((v) => v !== value));
  const selectShown = () => onChange([...selected, ...shown.map((o) => o.value).filter((v) => !selected.includes(v))]);
  const clearShown = () => onChange(selected.filter((v) => !shownValues.has(v)));
  const long = options.length >= FILTER_FROM;
  return (
    <fieldset className="checkbox-list">
      <legend>{legend}</legend>
      {long && (
        <div className="checkbox-list-tools">
          <label htmlFor={`${id}-filter`}>{filterLabel}</label>
          <input id={`${id}-filter`} type="search" value={filter} onChange={(e) => setFilter(e.target.value)} autoComplete="off" />
          <button type="button" className="secondary small" onClick={selectShown} disabled={shown.length === 0}>
            Select all{needle ? ' shown' : ''}
          </button>
          <button type="button" className="secondary small" onClick={clearShown} disabled={shown.length === 0}>
            Select none{needle ? ' shown' : ''}
          </button>
        </div>
      )}
      <div className="picker">
        {shown.map((option) => (
          <label key={option.value}>
            <input type="checkbox" checked={selected.includes(option.value)} onChange={(e) => toggle(option.value, e.target.checked)} />
            {option.label}
          </label>
        ))}
        {shown.length === 0 && <p>Nothing matches “{filter.trim()}”.</p>}
      </div>
      {long && (
        <p className="checkbox-list-count" aria-live="polite">
          {selected.length} of {options.length} selected
        </p>
      )}
      {after}
    </fieldset>
  );
}
