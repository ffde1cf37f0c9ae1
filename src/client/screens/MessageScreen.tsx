import type { ScreenStep } from '../../shared/flow.js';
import { Layout } from '../ui/Layout.js';
import { StepLinks } from '../ui/StepLinks.js';
import { ScreenActionButton } from './parts.js';

/** A screen that tells the driver something: an image, a title, a message and an optional way on, all from the flow. */
export function MessageScreen({ step }: { step: ScreenStep }) {
  const { image, title, message, action } = step.content ?? {};
  return (
    <Layout>
      <section className="message-screen">
        {image && <img className="message-image" src={image} alt="" width={240} height={180} />}
        {title && <h1>{title}</h1>}
        {message && <p>{message}</p>}
        {action && <ScreenActionButton action={action} />}
        <StepLinks links={step.links} />
      </section>
    </Layout>
  );
}
