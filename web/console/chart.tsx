import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';

/**
 * A small line chart of daily amounts with uPlot. The amounts arrive as exact decimal strings; only
 * the drawing converts them to numbers (the table beside it keeps the exact figures).
 */
const COLORS = ['#1f5fbf', '#1b6b3a', '#a4161a', '#8a5300', '#6a3fa0', '#0f7c8c'];

export function VolumeChart({
  days,
  series,
}: {
  days: string[];
  series: { label: string; values: (string | null)[] }[];
}) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!box.current || days.length === 0) return;
    const plot = new uPlot(
      {
        width: Math.max(320, Math.min(1100, box.current.clientWidth || 900)),
        height: 220,
        series: [
          {},
          ...series.map((s, i) => ({ label: s.label, stroke: COLORS[i % COLORS.length], width: 2 })),
        ],
        axes: [{}, { size: 70 }],
        legend: { show: false },
        scales: { x: { time: true } },
      },
      [
        days.map((d) => Date.parse(`${d}T00:00:00Z`) / 1000),
        ...series.map((s) => s.values.map((v) => (v === null ? null : Number(v)))),
      ] as uPlot.AlignedData,
      box.current,
    );
    return () => plot.destroy();
  }, [days, series]);
  return (
    <figure class="chart">
      <div ref={box} role="img" aria-label="Daily deposit volume, last 14 days" />
      <figcaption>
        {series.map((s, i) => (
          <span key={s.label} class="legend">
            <span class="swatch" style={{ background: COLORS[i % COLORS.length] }} /> {s.label}
          </span>
        ))}
      </figcaption>
    </figure>
  );
}
