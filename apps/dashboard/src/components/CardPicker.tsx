import * as Popover from '@radix-ui/react-popover';
import { Command, useCommandState } from 'cmdk';
import { useId, useMemo, useState, type KeyboardEvent, type ReactNode } from 'react';
import { itemValueLabel, type CatalogBrand, type CatalogItem } from '../api/catalog';
import { cardMatches } from '../format/card-search';

export interface CardChoice {
  brand: CatalogBrand;
  item: CatalogItem;
}

/** The value of the "no card" option, when the picker offers one (never a utid: those start with U). */
const NONE = '(none)';

/** How a card reads in the picker and on its button: brand, card, value with its currency, utid. */
export function cardText({ brand, item }: CardChoice): string {
  return `${brand.name}: ${item.rewardName} (${itemValueLabel(item)} ${item.currencyCode}) ${item.utid}`;
}

/**
 * A searchable choice of one gift card of the catalog (docs/dashboard.md, Widgets from kept
 * libraries): a button showing the card chosen, which opens a Radix popover holding a cmdk list.
 * Typing filters by name, brand, currency or utid; the arrow keys move, Enter chooses, Escape
 * closes, and focus goes back to the button. Each card shows its value, currency and utid; the chosen one's utid is for the caller to
 * offer to copy (a button inside an option would be a control inside a control).
 *
 * `label` names the button (as "label: the card chosen"); with `none`, the first option clears the
 * choice and reads so. `issuePath` and `error` mark the button as the field the API refused.
 */
export function CardPicker({
  label,
  brands,
  value,
  onChange,
  none,
  placeholder = 'Choose a card',
  hint,
  error,
  issuePath,
}: {
  label: string;
  brands: readonly CatalogBrand[] | undefined;
  value: string | null;
  onChange: (choice: CardChoice | null) => void;
  none?: string;
  placeholder?: string;
  hint?: string;
  error?: string;
  issuePath?: string;
}) {
  const id = useId();
  const [open, setOpen] = useState(false);
  const cards = useMemo(() => (brands ?? []).flatMap((brand) => brand.items.map((item) => ({ brand, item }))), [brands]);
  const chosen = cards.find((c) => c.item.utid === value) ?? null;
  const shown = chosen ? cardText(chosen) : (none ?? placeholder);
  const describedBy = [hint ? `${id}-hint` : null, error ? `${id}-error` : null].filter(Boolean).join(' ') || undefined;
  const pick = (choice: CardChoice | null) => {
    onChange(choice);
    setOpen(false);
  };
  // As a native select does: the down arrow opens the list as well as Enter and Space.
  const openOnArrow = (event: KeyboardEvent<HTMLButtonElement>) => {
    if (event.key === 'ArrowDown' && !open) {
      event.preventDefault();
      setOpen(true);
    }
  };
  return (
    <div className="field">
      <label htmlFor={`${id}-button`}>{label}</label>
      <Popover.Root open={open} onOpenChange={setOpen} modal>
        <Popover.Trigger asChild>
          <button
            id={`${id}-button`}
            type="button"
            className="picker-trigger"
            aria-label={`${label}: ${shown}`}
            aria-describedby={describedBy}
            aria-invalid={error ? true : undefined}
            data-issue-path={issuePath}
            disabled={!brands}
            onKeyDown={openOnArrow}
          >
            <span>{shown}</span>
            <span aria-hidden="true">▾</span>
          </button>
        </Popover.Trigger>
        <Popover.Portal>
          <Popover.Content className="popover card-picker" align="start" sideOffset={4} collisionPadding={8} aria-label={label}>
            <Command label={`Search: ${label}`} filter={(itemValue, search, keywords) => (cardMatches([itemValue, ...(keywords ?? [])].join(' '), search) ? 1 : 0)} loop defaultValue={value ?? (none ? NONE : undefined)}>
              <Command.Input placeholder="Name, brand, currency or utid" />
              <CardList label={`${label}: cards`}>
                {none && (
                  <Command.Item value={NONE} keywords={[none]} onSelect={() => pick(null)}>
                    {none}
                  </Command.Item>
                )}
                {cards.map((card) => (
                  <Command.Item
                    key={card.item.utid}
                    value={card.item.utid}
                    keywords={[card.brand.name, card.brand.brandKey, card.item.rewardName, card.item.currencyCode]}
                    onSelect={() => pick(card)}
                  >
                    <span className="card-option-name">
                      {card.brand.name}: {card.item.rewardName}
                    </span>
                    <span className="card-option-facts">
                      {itemValueLabel(card.item)} {card.item.currencyCode} · <code>{card.item.utid}</code>
                      {card.item.utid === value && <span className="tag">Chosen</span>}
                    </span>
                  </Command.Item>
                ))}
              </CardList>
            </Command>
          </Popover.Content>
        </Popover.Portal>
      </Popover.Root>
      {hint && <small id={`${id}-hint`}>{hint}</small>}
      {error && (
        <small id={`${id}-error`} className="field-error">
          {error}
        </small>
      )}
    </div>
  );
}

/**
 * cmdk's listbox, hidden while nothing matches (a listbox without options is not a valid one), with
 * "No card matches." beside it, said politely by screen readers as it appears.
 */
function CardList({ label, children }: { label: string; children: ReactNode }) {
  const matches = useCommandState((state) => state.filtered.count);
  return (
    <>
      <Command.List label={label} hidden={matches === 0}>
        {children}
      </Command.List>
      <div aria-live="polite">
        <Command.Empty>No card matches.</Command.Empty>
      </div>
    </>
  );
}
