import * as Dialog from '@radix-ui/react-dialog';
import type { ReactNode } from 'react';

/**
 * The last look before money leaves (docs/dashboard.md, Sending): a modal dialog from Radix, which
 * moves focus into it, keeps it there, closes with Escape or "Cancel" and gives focus back to what
 * opened it. `details` is a list of what will happen, in the user's words.
 *
 * Opened from a menu item (a row's Actions), the element that opened it is gone when it closes:
 * `focusAfter` names the element to give focus back to instead (the row's Actions button), and the
 * page's content when that is gone too (a deleted row).
 */
export function ConfirmDialog({
  open,
  title,
  details,
  confirmLabel,
  onConfirm,
  onCancel,
  focusAfter,
}: {
  open: boolean;
  title: string;
  details: { label: string; value: ReactNode }[];
  confirmLabel: string;
  onConfirm: () => void;
  onCancel: () => void;
  focusAfter?: string;
}) {
  return (
    <Dialog.Root open={open} onOpenChange={(next) => (next ? undefined : onCancel())}>
      <Dialog.Portal>
        <Dialog.Overlay className="dialog-overlay" />
        <Dialog.Content
          className="dialog"
          onCloseAutoFocus={(event) => {
            if (!focusAfter) return;
            event.preventDefault();
            (document.getElementById(focusAfter) ?? document.getElementById('main'))?.focus();
          }}
        >
          <Dialog.Title>{title}</Dialog.Title>
          <Dialog.Description asChild>
            <dl className="dialog-details">
              {details.map((d) => (
                <div key={d.label}>
                  <dt>{d.label}</dt>
                  <dd>{d.value}</dd>
                </div>
              ))}
            </dl>
          </Dialog.Description>
          <div className="actions">
            <button type="button" onClick={onConfirm}>
              {confirmLabel}
            </button>
            <Dialog.Close asChild>
              <button type="button" className="secondary">
                Cancel
              </button>
            </Dialog.Close>
          </div>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
