/**
 * A range of creation days for a list's filters (docs/dashboard.md, Filters): `from` and `to` are
 * UTC days (`YYYY-MM-DD`), both included, kept in the page's address by the page. The API takes at
 * most 366 days; a longer or reversed range is answered with its error. A change names only the day
 * changed: the other, as rendered, may be older than the address (components/address-params.ts).
 */
export function DateRangeFields({ from, to, onChange }: { from?: string; to?: string; onChange: (range: { from?: string; to?: string }) => void }) {
  return (
    <fieldset className="date-range">
      <legend>Created (UTC days)</legend>
      <label htmlFor="created-from">From</label>
      <input id="created-from" type="date" value={from ?? ''} max={to} onChange={(e) => onChange({ from: e.target.value || undefined })} />
      <label htmlFor="created-to">To</label>
      <input id="created-to" type="date" value={to ?? ''} min={from} onChange={(e) => onChange({ to: e.target.value || undefined })} />
    </fieldset>
  );
}
