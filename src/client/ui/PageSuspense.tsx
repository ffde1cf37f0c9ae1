import { Suspense, useState, type ReactNode } from 'react';
import { useHydrated } from '../runtime/serverPage.js';

function Loading() {
  return (
    <div className="page-loading" role="status" aria-live="polite">
      <span className="spinner spinner-large" aria-hidden="true" />
    </div>
  );
}

/**
 * A Suspense boundary, showing the page's spinner, for what a page loads as it opens (its code,
 * its form), but none around a page the server drew, as it is hydrated, nor on the server (the two
 * draw the same): React leaves a drawn boundary's content for later and hydrates it at idle
 * priority, in 5 ms slices with the browser's other tasks between them (a page at the bench's slow
 * phone took ~230 ms so, ~90 ms in one pass), where the drawn page has loaded all it draws before
 * hydrating (main.tsx). Chosen once, as the page opens: a page opened later, in the browser, has
 * its boundary.
 */
export function PageSuspense({ children }: { children: ReactNode }) {
  const hydrated = useHydrated();
  const [bounded] = useState(hydrated);
  return bounded ? <Suspense fallback={<Loading />}>{children}</Suspense> : children;
}
