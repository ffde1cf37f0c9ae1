/** The flow's links under a step or screen: "Already signed up? Sign in". */
import { Link } from 'wouter';
import type { StepLink } from '../../shared/flow.js';
import { routeOf } from '../runtime/flow.js';

export function StepLinks({ links }: { links: StepLink[] | undefined }) {
  if (!links?.length) return null;
  return (
    <div className="step-links">
      {links.map((link) => (
        <p key={link.to}>
          {link.text && `${link.text} `}
          <Link href={routeOf(link.to)}>{link.label}</Link>
        </p>
      ))}
    </div>
  );
}
