/**
 * The journey's end (the flow's `completion`): a congratulations view that tells the driver to
 * close the page with the host app's close button. An embedding app is told as well, so it can
 * close the flow itself: a parent window gets a `postMessage`, and a React Native web view
 * (which injects `window.ReactNativeWebView`) gets the same message as text.
 */
import { useEffect } from 'react';
import type { Completion } from '../../shared/flow.js';
import { Layout } from '../ui/Layout.js';

declare global {
  interface Window {
    ReactNativeWebView?: { postMessage(message: string): void };
  }
}

function tellHostApp(type: string): void {
  const message = { type };
  try {
    if (window.parent !== window) window.parent.postMessage(message, '*');
    window.ReactNativeWebView?.postMessage(JSON.stringify(message));
  } catch {
    // A host that cannot be told still has the close button the page asks the driver to tap.
  }
}

export function CompletionView({ completion }: { completion: Completion }) {
  useEffect(() => tellHostApp(completion.hostMessage), [completion.hostMessage]);
  return (
    <Layout>
      <section className="message-screen" role="status" aria-live="polite">
        {completion.image && <img className="message-image" src={completion.image} alt="" width={240} height={180} />}
        <h1>{completion.title}</h1>
        <p>{completion.message}</p>
        <p className="message-hint">{completion.hint}</p>
      </section>
    </Layout>
  );
}
