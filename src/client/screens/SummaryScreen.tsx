/** The summary (/summary): what the subscription gives, its price from the server's configuration, and the way on. */
import { currentLocale } from '../runtime/locale.js';
import type { ScreenStep } from '../../shared/flow.js';
import { appConfig } from '../runtime/config.js';
import { Layout } from '../ui/Layout.js';
import { priceText } from '../runtime/price.js';
import { ScreenActionButton } from './parts.js';

export function SummaryScreen({ step }: { step: ScreenStep }) {
  const { image, title, message, action } = step.content ?? {};
  return (
    <Layout>
      <section className="summary-screen">
        {image && <img className="message-image" src={image} alt="" width={240} height={180} />}
        {title && <h1>{title}</h1>}
        {message && <p className="summary-lead">{message}</p>}
        {step.sections?.map((section) => (
          <section key={section.title} className="summary-section">
            <h2>{section.title}</h2>
            <ul>
              {section.items.map((item) => (
                <li key={item}>{item}</li>
              ))}
            </ul>
          </section>
        ))}
        <p className="summary-price">
          {step.priceCaption && <span className="summary-price-caption">{step.priceCaption}</span>}
          <strong>{priceText(appConfig().subscriptionPlan, currentLocale())}</strong>
        </p>
        {action && <ScreenActionButton action={action} />}
      </section>
    </Layout>
  );
}
