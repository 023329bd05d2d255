import * as DropdownMenu from '@radix-ui/react-dropdown-menu';

export interface MenuAction {
  label: string;
  onSelect: () => void;
  /** Not offered now: shown greyed, skipped by the arrow keys, and `reason` says why. */
  disabled?: boolean;
  reason?: string;
  danger?: boolean;
}

/**
 * A row's actions behind one "Actions" button (docs/dashboard.md, Widgets from kept libraries): a
 * Radix dropdown menu, so the arrow keys move between its items, Enter or Space runs one, Escape
 * closes it and focus goes back to the button. `name` is the button's accessible name and should
 * name the row ("Actions for …"), since every row has one; `id` lets a page give focus back to it
 * after a dialog.
 *
 * Not modal: a menu leaves the page as it is for assistive technology (nothing hidden, nothing
 * locked), as the menu button pattern has it; it still closes on a click or focus outside it.
 */
export function ActionsMenu({ name, id, actions }: { name: string; id?: string; actions: MenuAction[] }) {
  return (
    <DropdownMenu.Root modal={false}>
      <DropdownMenu.Trigger asChild>
        <button {...(id ? { id } : {})} type="button" className="secondary small menu-trigger" aria-label={name}>
          Actions <span aria-hidden="true">▾</span>
        </button>
      </DropdownMenu.Trigger>
      <DropdownMenu.Portal>
        {/* Named by its button, whose id may be the caller's rather than Radix's own. */}
        <DropdownMenu.Content className="popover menu" align="end" sideOffset={4} collisionPadding={8} loop {...(id ? { 'aria-labelledby': id } : {})}>
          {actions.map((action) => (
            <DropdownMenu.Item
              key={action.label}
              className={action.danger ? 'menu-item danger' : 'menu-item'}
              disabled={action.disabled}
              onSelect={action.onSelect}
            >
              {action.label}
              {action.disabled && action.reason && <small className="menu-item-reason"> ({action.reason})</small>}
            </DropdownMenu.Item>
          ))}
        </DropdownMenu.Content>
      </DropdownMenu.Portal>
    </DropdownMenu.Root>
  );
}
