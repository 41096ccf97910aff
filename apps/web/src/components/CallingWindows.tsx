import type { CallingWindowInput } from '@voice/core/schemas';
import type { z } from 'zod';

export type CallingWindow = z.input<typeof CallingWindowInput>;
type Day = CallingWindow['days'][number];

const DAYS: [Day, string][] = [
  ['mon', 'Mon'],
  ['tue', 'Tue'],
  ['wed', 'Wed'],
  ['thu', 'Thu'],
  ['fri', 'Fri'],
  ['sat', 'Sat'],
  ['sun', 'Sun'],
];

/** A new window's default: weekdays, office hours. */
const OFFICE_HOURS: CallingWindow = {
  days: ['mon', 'tue', 'wed', 'thu', 'fri'],
  start: '09:00',
  end: '17:00',
};

/**
 * A campaign's calling windows: the days and local hours its contacts may be called (each in their own
 * timezone). None: any time. Each window's error from the API appears in it.
 */
export function CallingWindows({
  windows,
  onChange,
  errorOf,
}: {
  windows: CallingWindow[];
  onChange(windows: CallingWindow[]): void;
  /** The error of a window's field (`days`, `start`, `end`), if any. */
  errorOf(index: number, field: string): string | undefined;
}) {
  const change = (index: number, changes: Partial<CallingWindow>) =>
    onChange(windows.map((window, i) => (i === index ? { ...window, ...changes } : window)));
  return (
    <fieldset className="choices">
      <legend>Calling windows</legend>
      {windows.length === 0 && <p className="hint">None: contacts may be called at any hour, any day.</p>}
      {windows.map((window, index) => {
        const errors = ['days', 'start', 'end'].map((field) => errorOf(index, field)).filter(Boolean);
        return (
          <fieldset key={index} className="calling-window" aria-label={`Calling window ${index + 1}`}>
            {DAYS.map(([day, label]) => (
              <label key={day} className="inline">
                <input
                  type="checkbox"
                  checked={window.days.includes(day)}
                  onChange={(event) =>
                    change(index, {
                      days: event.target.checked
                        ? DAYS.map(([d]) => d).filter((d) => d === day || window.days.includes(d))
                        : window.days.filter((d) => d !== day),
                    })
                  }
                />{' '}
                {label}
              </label>
            ))}
            <label className="inline">
              From{' '}
              <input
                type="time"
                value={window.start}
                onChange={(event) => change(index, { start: event.target.value })}
              />
            </label>
            <label className="inline">
              to{' '}
              <input
                type="time"
                value={window.end}
                onChange={(event) => change(index, { end: event.target.value })}
              />
            </label>
            <button
              type="button"
              className="secondary"
              onClick={() => onChange(windows.filter((_, i) => i !== index))}
            >
              Remove window {index + 1}
            </button>
            {errors.length > 0 && (
              <p className="field-error" role="alert">
                {errors.join('; ')}
              </p>
            )}
          </fieldset>
        );
      })}
      <button type="button" className="secondary" onClick={() => onChange([...windows, OFFICE_HOURS])}>
        Add a calling window
      </button>
    </fieldset>
  );
}
