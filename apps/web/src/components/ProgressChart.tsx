import { humanize } from '../format';
import { COLORS } from './palette';

/** A chart's width in time: seconds, minutes or hours. */
const spanLabel = (ms: number) =>
  ms < 120_000
    ? `${Math.round(ms / 1000)} s`
    : ms < 7_200_000
      ? `${Math.round(ms / 60_000)} min`
      : `${(ms / 3_600_000).toFixed(1)} h`;

export interface Sample {
  /** Unix ms. */
  at: number;
  /** Calls placed so far. */
  dialed: number;
  outcomes: Record<string, number>;
}

const WIDTH = 640;
const HEIGHT = 200;
const PAD = 28;
/** One colour per series (palette.ts); past them, the colours come again dashed. */
const dash = (index: number) => (index >= COLORS.length ? '6 3' : undefined);

/**
 * A campaign's calls placed and their outcomes so far, one line each, drawn as SVG from its stored
 * history; the legend says the latest figures.
 */
export function ProgressChart({ samples }: { samples: Sample[] }) {
  if (samples.length < 2)
    return <p className="hint">No calls yet: the chart fills in as the campaign dials.</p>;
  const outcomes = [...new Set(samples.flatMap((s) => Object.keys(s.outcomes)))].sort();
  const series = [
    { name: 'dialed', values: samples.map((s) => s.dialed) },
    ...outcomes.map((name) => ({ name, values: samples.map((s) => s.outcomes[name] ?? 0) })),
  ];
  const first = samples[0]!.at;
  const span = Math.max(samples.at(-1)!.at - first, 1);
  const top = Math.max(1, ...series.flatMap((s) => s.values));
  const x = (at: number) => PAD + ((at - first) / span) * (WIDTH - 2 * PAD);
  const y = (value: number) => HEIGHT - PAD - (value / top) * (HEIGHT - 2 * PAD);
  const last = samples.at(-1)!;
  return (
    <figure className="chart">
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-labelledby="chart-caption">
        <line x1={PAD} y1={HEIGHT - PAD} x2={WIDTH - PAD} y2={HEIGHT - PAD} stroke="#8c959f" />
        <line x1={PAD} y1={PAD} x2={PAD} y2={HEIGHT - PAD} stroke="#8c959f" />
        <text x={PAD - 4} y={PAD + 4} textAnchor="end" fontSize="11">
          {top}
        </text>
        <text x={PAD - 4} y={HEIGHT - PAD} textAnchor="end" fontSize="11">
          0
        </text>
        <text x={WIDTH - PAD} y={HEIGHT - 8} textAnchor="end" fontSize="11">
          {spanLabel(span)}
        </text>
        {series.map((line, index) => (
          <polyline
            key={line.name}
            fill="none"
            stroke={COLORS[index % COLORS.length]}
            strokeDasharray={dash(index)}
            strokeWidth={index === 0 ? 2.5 : 1.75}
            points={line.values.map((value, i) => `${x(samples[i]!.at)},${y(value)}`).join(' ')}
          />
        ))}
      </svg>
      <figcaption id="chart-caption">
        <ul className="legend">
          {series.map((line, index) => (
            <li key={line.name}>
              <svg className="swatch" viewBox="0 0 4 4" aria-hidden="true">
                {dash(index) ? (
                  <path d="M0 2h1.5M2.5 2H4" stroke={COLORS[index % COLORS.length]} strokeWidth="2" />
                ) : (
                  <rect width="4" height="4" fill={COLORS[index % COLORS.length]} />
                )}
              </svg>
              {humanize(line.name)}: {line.name === 'dialed' ? last.dialed : (last.outcomes[line.name] ?? 0)}
            </li>
          ))}
        </ul>
      </figcaption>
    </figure>
  );
}
