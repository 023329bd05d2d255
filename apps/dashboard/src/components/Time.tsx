import { formatTime } from '../format/money';

/** A time in the browser's zone; the exact timestamp shows on hover. */
export function Time({ value }: { value: string | null | undefined }) {
  if (!value) return <>—</>;
  return (
    <time dateTime={value} title={value}>
      {formatTime(value)}
    </time>
  );
}
