import type { ScreenStep } from '../../shared/flow.js';
import { Layout } from '../Layout.js';

/** A screen that only tells the driver something: an image, a title and a message from the flow. */
export function MessageScreen({ step }: { step: ScreenStep }) {
  const { image, title, message } = step.content ?? {};
  return (
    <Layout>
      <section className="message-screen">
        {image && <img className="message-image" src={image} alt="" width={240} height={180} />}
        {title && <h1>{title}</h1>}
        {message && <p>{message}</p>}
      </section>
    </Layout>
  );
}
