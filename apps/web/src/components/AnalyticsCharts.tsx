import { COLORS } from './palette';

/** The outcomes the charts stack, in a fixed order and colour, each gathering the API's outcomes. */
export const OUTCOME_GROUPS = [
  { label: 'Completed', outcomes: ['ended'] },
  { label: 'Hung up', outcomes: ['user_hangup', 'agent_hangup'] },
  { label: 'Voicemail', outcomes: ['voicemail', 'voicemail_left'] },
  { label: 'No answer', outcomes: ['no_answer'] },
  { label: 'Busy', outcomes: ['busy'] },
  { label: 'Error', outcomes: ['error'] },
  { label: 'In progress', outcomes: ['initiated', 'ringing', 'ongoing'] },
] as const;

export interface Point {
  timestamp: number;
  calls: number;
  outcomes: Record<string, number>;
}

const WIDTH = 720;
const HEIGHT = 220;
const PAD = 32;

const groupValue = (point: Point, outcomes: readonly string[]) =>
  outcomes.reduce((sum, outcome) => sum + (point.outcomes[outcome] ?? 0), 0);

function Legend() {
  return (
    <ul className="legend">
      {OUTCOME_GROUPS.map((group, index) => (
        <li key={group.label}>
          <svg className="swatch" viewBox="0 0 4 4" aria-hidden="true">
            <rect width="4" height="4" fill={COLORS[index]} />
          </svg>
          {group.label}
        </li>
      ))}
    </ul>
  );
}

/**
 * Calls per interval, stacked by outcome, drawn as SVG; the same figures are in a table below it for
 * screen readers and anyone who wants the numbers.
 */
export function OutcomeChart({ series, label }: { series: Point[]; label(timestamp: number): string }) {
  const top = Math.max(1, ...series.map((point) => point.calls));
  const step = (WIDTH - 2 * PAD) / Math.max(series.length, 1);
  const bar = Math.max(step * 0.8, 0.5);
  const height = (value: number) => (value / top) * (HEIGHT - 2 * PAD);
  return (
    <figure className="chart">
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-labelledby="outcomes-caption">
        <line x1={PAD} y1={HEIGHT - PAD} x2={WIDTH - PAD} y2={HEIGHT - PAD} stroke="#8c959f" />
        <text x={PAD - 4} y={PAD + 4} textAnchor="end" fontSize="11">
          {top}
        </text>
        <text x={PAD - 4} y={HEIGHT - PAD} textAnchor="end" fontSize="11">
          0
        </text>
        {series.length > 0 && (
          <>
            <text x={PAD} y={HEIGHT - 10} fontSize="11">
              {label(series[0]!.timestamp)}
            </text>
            <text x={WIDTH - PAD} y={HEIGHT - 10} textAnchor="end" fontSize="11">
              {label(series.at(-1)!.timestamp)}
            </text>
          </>
        )}
        {series.map((point, index) => {
          let base = HEIGHT - PAD;
          return (
            <g key={point.timestamp}>
              {OUTCOME_GROUPS.map((group, colour) => {
                const h = height(groupValue(point, group.outcomes));
                if (h <= 0) return null;
                base -= h;
                return (
                  <rect
                    key={group.label}
                    x={PAD + index * step + (step - bar) / 2}
                    y={base}
                    width={bar}
                    height={h}
                    fill={COLORS[colour]}
                  />
                );
              })}
            </g>
          );
        })}
      </svg>
      <figcaption id="outcomes-caption">
        Calls by outcome over time
        <Legend />
      </figcaption>
      <details>
        <summary>The figures as a table</summary>
        <div className="table-scroll">
          <table className="cards">
            <caption className="visually-hidden">Calls by outcome over time</caption>
            <thead>
              <tr>
                <th scope="col">From</th>
                <th scope="col">Calls</th>
                {OUTCOME_GROUPS.map((group) => (
                  <th scope="col" key={group.label}>
                    {group.label}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {series
                .filter((point) => point.calls !== 0)
                .map((point) => (
                  <tr key={point.timestamp}>
                    <td data-label="From">{label(point.timestamp)}</td>
                    <td data-label="Calls">{point.calls}</td>
                    {OUTCOME_GROUPS.map((group) => (
                      <td key={group.label} data-label={group.label}>
                        {groupValue(point, group.outcomes)}
                      </td>
                    ))}
                  </tr>
                ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}

/** Calls by the hour of the day they started, 24 bars, with the figures in the bars' titles. */
export function HourChart({ counts, timezone }: { counts: number[]; timezone: string }) {
  const top = Math.max(1, ...counts);
  const step = (WIDTH - 2 * PAD) / 24;
  return (
    <figure className="chart">
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-labelledby="hours-caption">
        <line x1={PAD} y1={HEIGHT - PAD} x2={WIDTH - PAD} y2={HEIGHT - PAD} stroke="#8c959f" />
        <text x={PAD - 4} y={PAD + 4} textAnchor="end" fontSize="11">
          {top}
        </text>
        {counts.map((count, hour) => {
          const h = (count / top) * (HEIGHT - 2 * PAD);
          return (
            <g key={hour}>
              <rect
                x={PAD + hour * step + step * 0.1}
                y={HEIGHT - PAD - h}
                width={step * 0.8}
                height={h}
                fill={COLORS[0]}
              >
                <title>{`${hour}:00: ${count} calls`}</title>
              </rect>
              {hour % 3 === 0 && (
                <text x={PAD + hour * step + step / 2} y={HEIGHT - 10} textAnchor="middle" fontSize="11">
                  {hour}
                </text>
              )}
            </g>
          );
        })}
      </svg>
      <figcaption id="hours-caption">
        Calls by hour of the day they started ({timezone}):{' '}
        {counts
          .map((count, hour) => [hour, count] as const)
          .filter(([, count]) => count > 0)
          .map(([hour, count]) => `${hour}:00 ${count}`)
          .join(', ') || 'none'}
      </figcaption>
    </figure>
  );
}
