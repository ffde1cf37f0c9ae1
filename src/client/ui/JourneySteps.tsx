import { flow } from '../runtime/flow.js';

/**
 * The stages of the journey (spec §1, the flow's `journey`), the current one marked: on a phone a
 * row of numbers with the current stage's name, which fits 390 px; beside the form on a wide
 * screen, every name. Screen readers hear every name, and which are done. A departure on purpose
 * (docs/departures.md): the spec shows the six names on every page; below 900 px (app.css) six names don't
 * fit beside a 390 px form, so only the current stage is named there.
 */
export function JourneySteps({ current }: { current: number }) {
  return (
    <ol className="journey">
      {flow.journey.map((label, index) => {
        const state = index < current ? 'is-done' : index === current ? 'is-current' : '';
        return (
          <li key={label} className={`journey-step ${state}`} aria-current={index === current ? 'step' : undefined}>
            <span className="journey-number" aria-hidden="true">
              {index + 1}
            </span>
            <span className="journey-label">
              {label}
              {index < current && <span className="visually-hidden"> (done)</span>}
            </span>
          </li>
        );
      })}
    </ol>
  );
}
