// @vitest-environment happy-dom
// A page's Suspense boundary: there for what a page opened in the browser loads, absent from a
// page the server drew (whose drawn boundary React would hydrate last, at idle priority, in slices).
import { act, cleanup, render, screen } from '@testing-library/react';
import { lazy } from 'react';
import { hydrateRoot } from 'react-dom/client';
import { renderToString } from 'react-dom/server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PageSuspense } from '../../../src/client/ui/PageSuspense.js';

afterEach(cleanup);

const Drawn = () => <p>Drawn page</p>;

describe('PageSuspense', () => {
  it('shows the page’s spinner while a page opened in the browser loads, then the page', async () => {
    let arrive = () => undefined as void;
    const arrived = new Promise<void>((resolve) => {
      arrive = resolve;
    });
    const Page = lazy(() => arrived.then(() => ({ default: Drawn })));
    render(
      <PageSuspense>
        <Page />
      </PageSuspense>,
    );
    expect(screen.getByRole('status')).toBeTruthy();
    await act(async () => arrive());
    expect(screen.getByText('Drawn page')).toBeTruthy();
    expect(screen.queryByRole('status')).toBeNull();
  });

  it('draws no boundary on the server, so the drawn page hydrates with the rest, in one pass and without a mismatch', async () => {
    const page = (
      <main>
        <PageSuspense>
          <Drawn />
        </PageSuspense>
      </main>
    );
    const html = renderToString(page);
    // A drawn boundary would be marked by comments (<!--$-->), which React hydrates apart.
    expect(html).toBe('<main><p>Drawn page</p></main>');
    const container = document.createElement('div');
    container.innerHTML = html;
    const drawnParagraph = container.querySelector('p');
    const onRecoverableError = vi.fn();
    await act(async () => {
      hydrateRoot(container, page, { onRecoverableError });
    });
    expect(onRecoverableError).not.toHaveBeenCalled();
    // Hydrated, not drawn again: the server's element is the page's.
    expect(container.querySelector('p')).toBe(drawnParagraph);
    expect(Object.keys(drawnParagraph as object).some((key) => key.startsWith('__reactFiber'))).toBe(true);
  });
});
