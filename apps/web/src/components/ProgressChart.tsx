import { humanize } from '../format';
import { COLORS } from './palette';

export interface Sample {
  /** Unix ms. */
  at: number;
  /** Contacts dialed and done with so far. */
  dialed: number;
  outcomes: Record<string, number>;
}

const WIDTH = 640;
const HEIGHT = 200;
const PAD = 28;
/** One colour per series (palette.ts); past them, the colours come again dashed. */
const dash = (index: number) => (index >= COLORS.length ? '6 3' : undefined);

/**
 * Dials and outcomes since the page opened, one line each, drawn as SVG from the live updates; the
 * same figures are in a table for screen readers.
 */
export function ProgressChart({ samples }: { samples: Sample[] }) {
  if (samples.length < 2)
    return <p className="hint">The chart fills in as the campaign moves (updates arrive as they happen).</p>;
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
          {Math.round(span / 1000)} s
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
