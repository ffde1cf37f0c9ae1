import { flow } from './flow.js';

/** The six steps of the journey (spec §1), shown beside the sign-up form. */
export function JourneySteps({ current = 0 }: { current?: number }) {
  return (
    <ol className="journey" aria-label="Your onboarding steps">
      {flow.journey.map((label, index) => (
        <li key={label} className={index === current ? 'journey-step is-current' : 'journey-step'} aria-current={index === current ? 'step' : undefined}>
          <span className="journey-number" aria-hidden="true">
            {index + 1}
          </span>
          <span className="journey-label">{label}</span>
        </li>
      ))}
    </ol>
  );
}
