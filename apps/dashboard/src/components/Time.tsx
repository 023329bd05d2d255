import { formatTime } from '../format/money';

/** A time in the viewer's zone with the zone named; the exact instant is the element's `dateTime` and shows on hover. */
export function Time({ value }: { value: string | null | undefined }) {
  if (!value) return <>—</>;
  return (
    <time dateTime={value} title={value}>
      {formatTime(value)}
    </time>
  );
}
