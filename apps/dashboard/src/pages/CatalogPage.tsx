import { useMemo, useState } from 'react';
import { itemValueLabel, useCatalog } from '../api/catalog';
import { useHasScope } from '../api/session';
import { CopyCode } from '../components/CopyCode';
import { Field } from '../components/Field';
import { StatusMessage } from '../components/StatusMessage';
import { CatalogRules } from './CatalogRules';

export function CatalogPage() {
  const catalog = useCatalog();
  const mayRestrict = useHasScope('account:write');
  const [search, setSearch] = useState('');
  const [currency, setCurrency] = useState('');
  const [country, setCountry] = useState('');
  const brands = catalog.data ?? [];
  const currencies = useMemo(() => [...new Set(brands.flatMap((b) => b.items.map((i) => i.currencyCode)))].sort(), [brands]);
  const countries = useMemo(() => [...new Set(brands.flatMap((b) => b.items.flatMap((i) => i.countries)))].sort(), [brands]);
  const shown = useMemo(() => {
    const term = search.trim().toLowerCase();
    return brands
      .map((brand) => ({
        brand,
        items: brand.items.filter((i) => (!currency || i.currencyCode === currency) && (!country || i.countries.includes(country))),
      }))
      .filter(({ brand, items }) => items.length > 0 && (!term || `${brand.name} ${brand.brandKey} ${brand.categories.join(' ')} ${brand.items.map((i) => i.utid).join(' ')}`.toLowerCase().includes(term)));
  }, [brands, search, currency, country]);

  return (
    <>
      <h1>Catalog</h1>
      <div className="filters" role="search">
        <Field label="Search brands" type="search" value={search} onChange={(e) => setSearch(e.target.value)} />
        <div className="field">
          <label htmlFor="currency">Currency</label>
          <select id="currency" value={currency} onChange={(e) => setCurrency(e.target.value)}>
            <option value="">Any</option>
            {currencies.map((c) => (
              <option key={c}>{c}</option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="country">Country</label>
          <select id="country" value={country} onChange={(e) => setCountry(e.target.value)}>
            <option value="">Any</option>
            {countries.map((c) => (
              <option key={c}>{c}</option>
            ))}
          </select>
        </div>
      </div>
      {catalog.isPending && <StatusMessage kind="loading">Loading the catalog…</StatusMessage>}
      {catalog.isError && <StatusMessage kind="error">{catalog.error.message}</StatusMessage>}
      {catalog.data && shown.length === 0 && <StatusMessage kind="empty">No brand matches.</StatusMessage>}
      {mayRestrict && catalog.data && <CatalogRules brands={catalog.data} />}
      <ul className="brands">
        {shown.map(({ brand, items }) => (
          <li key={brand.brandKey}>
            <h2>{brand.name}</h2>
            <p>{brand.shortDescription}</p>
            {/* The codes a bulk file or an API call names (docs/dashboard.md, Catalog). */}
            <p>
              Brand key (for CHOICE rewards limited to brands): <CopyCode value={brand.brandKey} what="brand key" />
            </p>
            <ul>
              {items.map((i) => (
                <li key={i.utid}>
                  {i.rewardName}: {itemValueLabel(i)} <small>({i.countries.join(', ')})</small> utid <CopyCode value={i.utid} what="utid" />
                </li>
              ))}
            </ul>
          </li>
        ))}
      </ul>
    </>
  );
}
