/**
 * The journey's end (the flow's `completion`): a congratulations view that tells the driver to
 * close the page with the host app's close button. An embedding app is told as well, so it can
 * close the flow itself: a parent window gets a `postMessage`, and a React Native web view
 * (which injects `window.ReactNativeWebView`) gets the same message as text. A driver who came
 * through an integration's launch link also gets a button back to its return URL (a departure
 * from the spec: docs/departures.md), and the message carries the same signed result
 * (docs/launch-links.md).
 */
import { useEffect, useState } from 'react';
import type { Completion } from '../../shared/flow.js';
import { INTEGRATION_PREFIX, INTEGRATION_ROUTES, type LaunchResult, type LaunchReturn } from '../../shared/review.js';
import { request } from '../runtime/api.js';
import { getTokenCookie } from '../runtime/storage.js';
import { Layout } from '../ui/Layout.js';

declare global {
  interface Window {
    ReactNativeWebView?: { postMessage(message: string): void };
  }
}

function tellHostApp(type: string, result: LaunchResult | null): void {
  const message = result ? { type, result } : { type };
  try {
    if (window.parent !== window) window.parent.postMessage(message, '*');
    window.ReactNativeWebView?.postMessage(JSON.stringify(message));
  } catch {
    // A host that cannot be told still has the close button the page asks the driver to tap.
  }
}

/** Where the driver goes back to with their signed result; nothing for one who did not come through a launch link, or when it can't be read. */
async function launchReturn(): Promise<LaunchReturn | null> {
  const token = getTokenCookie();
  if (!token) return null;
  const answer = await request<LaunchReturn>(`${INTEGRATION_PREFIX}${INTEGRATION_ROUTES.return}`, { bearer: token });
  return answer.ok ? answer.data : null;
}

export function CompletionView({ completion }: { completion: Completion }) {
  const [back, setBack] = useState<LaunchReturn | null>(null);
  useEffect(() => {
    let shown = true;
    void launchReturn().then((answer) => {
      if (!shown) return;
      setBack(answer);
      tellHostApp(completion.hostMessage, answer?.result ?? null);
    });
    return () => {
      shown = false;
    };
  }, [completion.hostMessage]);
  return (
    <Layout>
      <section className="message-screen" role="status" aria-live="polite">
        {completion.image && <img className="message-image" src={completion.image} alt="" width={240} height={180} />}
        <h1>{completion.title}</h1>
        <p>{completion.message}</p>
        <p className="message-hint">{completion.hint}</p>
        {back?.url && completion.returnLabel && (
          <a className="button button-primary" href={back.url}>
            {completion.returnLabel}
          </a>
        )}
      </section>
    </Layout>
  );
}
