import { useEffect, useState, type FormEvent } from 'react';
import { useCatalogRules, useSaveCatalogRules, type CatalogBrand } from '../api/catalog';
import { CheckboxList } from '../components/CheckboxList';
import { FormError, issueOf } from '../components/FormError';
import { StatusMessage } from '../components/StatusMessage';

/**
 * The account's own restriction of the catalog (docs/catalog-rules.md): brands blocked, and
 * optionally an allow-list. The catalog this page lists is already filtered by the rules, so brands
 * hidden by them are shown by key, to be unblocked or allowed again.
 */
export function CatalogRules({ brands }: { brands: CatalogBrand[] }) {
  const rules = useCatalogRules();
  const [blocked, setBlocked] = useState<string[] | null>(null);
  const [onlyAllowed, setOnlyAllowed] = useState(false);
  const [allowedText, setAllowedText] = useState('');
  useEffect(() => {
    if (rules.data && blocked === null) {
      setBlocked(rules.data.blockedBrandKeys);
      setOnlyAllowed(rules.data.allowedBrandKeys !== null);
      setAllowedText((rules.data.allowedBrandKeys ?? []).join(', '));
    }
  }, [rules.data, blocked]);
  const save = useSaveCatalogRules();
  if (rules.isPending || blocked === null) return <StatusMessage kind="loading">Loading catalog rules…</StatusMessage>;
  if (rules.isError) return <StatusMessage kind="error">{rules.error.message}</StatusMessage>;

  const keys = [...new Set([...brands.map((b) => b.brandKey), ...blocked])].sort();
  const nameOf = new Map(brands.map((b) => [b.brandKey, b.name]));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const allowed = allowedText
      .split(/[\s,]+/)
      .map((k) => k.trim())
      .filter(Boolean);
    save.mutate({ allowedBrandKeys: onlyAllowed ? allowed : null, blockedBrandKeys: blocked });
  };
  return (
    <section aria-labelledby="catalog-rules">
      <h2 id="catalog-rules">Catalog rules</h2>
      <form onSubmit={submit} className="stack">
        <CheckboxList
          legend="Blocked brands (never offered, in any reward)"
          filterLabel="Filter brands"
          options={keys.map((key) => ({ value: key, label: `Block ${nameOf.get(key) ?? key}`, searchText: `${nameOf.get(key) ?? ''} ${key}` }))}
          selected={blocked}
          onChange={setBlocked}
        />
        <fieldset>
          <legend>Brands offered</legend>
          <label>
            <input type="radio" name="allowed-mode" checked={!onlyAllowed} onChange={() => setOnlyAllowed(false)} /> Every brand not blocked
          </label>
          <label>
            <input type="radio" name="allowed-mode" checked={onlyAllowed} onChange={() => setOnlyAllowed(true)} /> Only these brands
          </label>
          {onlyAllowed && (
            <div className="field">
              <label htmlFor="allowed-keys">Brand keys, separated by commas</label>
              <input id="allowed-keys" value={allowedText} onChange={(e) => setAllowedText(e.target.value)} />
              {issueOf(save.error, 'allowedBrandKeys') && <small className="field-error">{issueOf(save.error, 'allowedBrandKeys')}</small>}
            </div>
          )}
        </fieldset>
        <FormError error={save.error} labels={{ allowedBrandKeys: 'Brands' }} />
        <button type="submit" disabled={save.isPending}>
          Save catalog rules
        </button>
        {save.isSuccess && <span role="status">Catalog rules saved.</span>}
      </form>
    </section>
  );
}
