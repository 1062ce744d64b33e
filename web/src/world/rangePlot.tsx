// A range plot drawn in SVG at the size it is shown: one row per variant (or comparison) with its label written in
// full above a thick bar (the 95% interval, or the low-to-high cost range) and a dot (the mean, or the base cost), on
// one axis whose tick labels are formatted with units and thousands separators and always kept inside the drawing
// (the outer ticks are anchored inward; nothing is clipped). A zero line is drawn when zero is on the axis.
import { useLayoutEffect, useRef, useState } from 'react';

export type RangeRow = { label: string; value: number | null; low: number | null; high: number | null; note?: string };

const ROW_HEIGHT = 46;
const AXIS_HEIGHT = 30;
const SIDE = 8;
const MIN_WIDTH = 200;
const TICKS_WANTED = 4;

function useWidth<T extends HTMLElement>(): [React.RefObject<T | null>, number] {
  const ref = useRef<T>(null);
  const [width, setWidth] = useState(0);
  useLayoutEffect(() => {
    const element = ref.current;
    if (!element) return;
    const measure = () => setWidth(Math.max(MIN_WIDTH, Math.floor(element.getBoundingClientRect().width)));
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  return [ref, width];
}

/** Round tick positions (1, 2 or 5 times a power of ten) covering [min, max]. */
export function niceTicks(min: number, max: number, wanted = TICKS_WANTED): number[] {
  if (!(max > min)) {
    const pad = Math.abs(min) > 0 ? Math.abs(min) * 0.1 : 1;
    return niceTicks(min - pad, max + pad, wanted);
  }
  const rough = (max - min) / wanted;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= rough) ?? 10 * power;
  // each tick from its own multiple (no running sum), so zero is exactly 0 and not -1.4e-17
  const at = (k: number) => (k === 0 ? 0 : Number((k * step).toPrecision(12)));
  const ticks: number[] = [];
  let k = Math.floor(min / step);
  for (; at(k) <= max + step * 1e-9; k++) ticks.push(at(k));
  if (ticks[ticks.length - 1]! < max) ticks.push(at(k));
  return ticks;
}

/** Average width of a tick label's character at 12 px, with room between labels. */
const CHAR_PX = 7.2;
const LABEL_GAP_PX = 12;

/** The most ticks (up to four) whose labels fit side by side in the width without touching. */
function readableTicks(min: number, max: number, width: number, format: (value: number) => string): number[] {
  let ticks = niceTicks(min, max, TICKS_WANTED);
  for (let wanted = TICKS_WANTED - 1; wanted >= 1; wanted--) {
    const widest = Math.max(...ticks.map((t) => format(t).length)) * CHAR_PX + LABEL_GAP_PX;
    if ((width - 2 * SIDE) / Math.max(1, ticks.length - 1) >= widest) return ticks;
    ticks = niceTicks(min, max, wanted);
  }
  return ticks;
}

export function RangePlot({
  rows,
  format,
  zero = false,
  testId,
  label,
}: {
  rows: RangeRow[];
  format(value: number): string;
  zero?: boolean;
  testId?: string;
  label: string;
}) {
  const [ref, width] = useWidth<HTMLDivElement>();
  const values = rows.flatMap((r) => [r.low, r.high, r.value]).filter((v): v is number => v !== null && Number.isFinite(v));
  if (zero) values.push(0);
  const ticks = values.length ? readableTicks(Math.min(...values), Math.max(...values), width, format) : [];
  const lo = ticks[0] ?? 0;
  const hi = ticks[ticks.length - 1] ?? 1;
  const x = (v: number) => SIDE + ((v - lo) / (hi - lo || 1)) * (width - 2 * SIDE);
  const height = rows.length * ROW_HEIGHT + AXIS_HEIGHT;
  return (
    <div ref={ref} className="range-plot" data-testid={testId}>
      {width > 0 && ticks.length > 0 && (
        <svg width={width} height={height} role="img" aria-label={label}>
          {ticks.map((t) => (
            <line key={`grid-${t}`} x1={x(t)} x2={x(t)} y1={0} y2={height - AXIS_HEIGHT} className="grid" />
          ))}
          {zero && lo < 0 && hi > 0 && <line x1={x(0)} x2={x(0)} y1={0} y2={height - AXIS_HEIGHT} className="zero" />}
          {rows.map((row, i) => {
            const y = i * ROW_HEIGHT;
            return (
              <g key={row.label} className={`range-row tone-${i % 4}`}>
                <text x={SIDE} y={y + 15} className="row-label">
                  {row.label}
                  {row.note ? ` · ${row.note}` : ''}
                </text>
                {row.low !== null && row.high !== null && (
                  <>
                    <line x1={x(row.low)} x2={x(row.high)} y1={y + 31} y2={y + 31} className="interval" />
                    <line x1={x(row.low)} x2={x(row.low)} y1={y + 24} y2={y + 38} className="cap" />
                    <line x1={x(row.high)} x2={x(row.high)} y1={y + 24} y2={y + 38} className="cap" />
                  </>
                )}
                {row.value !== null && <circle cx={x(row.value)} cy={y + 31} r={6} className="point" />}
              </g>
            );
          })}
          <line x1={SIDE} x2={width - SIDE} y1={height - AXIS_HEIGHT} y2={height - AXIS_HEIGHT} className="axis" />
          {ticks.map((t, i) => (
            <text key={`tick-${t}`} x={x(t)} y={height - 10} className="axis-tick" textAnchor={i === 0 ? 'start' : i === ticks.length - 1 ? 'end' : 'middle'}>
              {format(t)}
            </text>
          ))}
        </svg>
      )}
    </div>
  );
}
