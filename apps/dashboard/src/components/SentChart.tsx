import { AxisBottom, AxisLeft } from '@visx/axis';
import { Group } from '@visx/group';
import { scaleBand, scaleLinear } from '@visx/scale';
import { Bar } from '@visx/shape';
import { formatCents } from '../format/money';

export interface SentDay {
  date: string;
  sentCents: number;
}

const WIDTH = 640;
const HEIGHT = 220;
const MARGIN = { top: 12, right: 8, bottom: 28, left: 64 };

/**
 * Value sent per day in one currency, as bars (docs/dashboard.md, Overview chart). Plain SVG drawn
 * by @visx, scaled to its container through the viewBox (no sideways scroll on a phone), with no
 * outside request. The figure is summarised for screen readers; the table beside it (ChartTable)
 * carries every value.
 */
export function SentChart({ currency, days }: { currency: string; days: readonly SentDay[] }) {
  const innerWidth = WIDTH - MARGIN.left - MARGIN.right;
  const innerHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const max = days.reduce((highest, d) => Math.max(highest, d.sentCents), 100);
  const x = scaleBand<string>({ domain: days.map((d) => d.date), range: [0, innerWidth], padding: 0.2 });
  const y = scaleLinear<number>({ domain: [0, max], range: [innerHeight, 0], nice: true });
  const total = days.reduce((sum, d) => sum + d.sentCents, 0);
  const every = Math.ceil(days.length / 6);
  return (
    <svg
      className="sent-chart"
      viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
      role="img"
      aria-label={`${formatCents(total, currency)} sent in ${currency} over the last ${days.length} days, per day; the table below lists each day.`}
    >
      <Group left={MARGIN.left} top={MARGIN.top}>
        {days.map((d) => {
          const height = innerHeight - (y(d.sentCents) ?? innerHeight);
          return <Bar key={d.date} x={x(d.date)} y={innerHeight - height} width={x.bandwidth()} height={height} className="sent-bar" />;
        })}
        <AxisLeft scale={y} numTicks={4} tickFormat={(v) => formatCents(Number(v), currency)} tickLabelProps={{ className: 'chart-tick', textAnchor: 'end' }} />
        <AxisBottom
          top={innerHeight}
          scale={x}
          tickValues={days.filter((_, i) => (days.length - 1 - i) % every === 0).map((d) => d.date)}
          tickFormat={(v) => String(v).slice(5)}
          tickLabelProps={{ className: 'chart-tick', textAnchor: 'middle' }}
        />
      </Group>
    </svg>
  );
}
