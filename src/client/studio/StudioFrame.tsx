/**
 * The studio's preview (/studio/frame), inside an iframe of the studio page so that the page's
 * own widths apply (a phone's 390 px, or a desktop's): one form step as drivers see it, with
 * the data the studio page sends. It sends each change back; it calls nothing and runs no guard.
 */
import type { IChangeEvent } from '@rjsf/core';
import { Suspense, use, useCallback, useEffect, useMemo, useState } from 'react';
import { createFormValues } from '../../../widgets/formValues.js';
import { flow, stepById } from '../runtime/flow.js';
import { CurrentStep } from '../ui/currentStep.js';
import { Layout } from '../ui/Layout.js';
import { loadStepForm, StepFormView, submitTextOf } from '../form/StepFormView.js';
import type { StepValues } from '../runtime/stepValues.js';
import type { StepFormContext } from '../form/templates.js';
import type { FrameMessage, ShowMessage } from './studioData.js';

const toStudio = (message: FrameMessage) => window.parent.postMessage(message, window.location.origin);

export function StudioFrame() {
  const [shown, setShown] = useState<ShowMessage>();

  useEffect(() => {
    const onMessage = (event: MessageEvent<ShowMessage>) => {
      if (event.origin !== window.location.origin || event.source !== window.parent || event.data?.kind !== 'show') return;
      setShown(event.data);
    };
    window.addEventListener('message', onMessage);
    toStudio({ kind: 'ready' });
    return () => window.removeEventListener('message', onMessage);
  }, []);

  if (!shown) return null;
  return (
    <Suspense fallback={null}>
      <FramedStep key={shown.key} shown={shown} />
    </Suspense>
  );
}

function FramedStep({ shown }: { shown: ShowMessage }) {
  const form = use(loadStepForm(shown.schema));
  const [values] = useState(() => createFormValues(shown.data));
  // No `touched`: every field shows its errors at once, as after a submit.
  const formContext: StepFormContext = useMemo(() => ({ values, widgetTexts: flow.messages.widgets }), [values]);

  const onChange = useCallback(
    (event: IChangeEvent<StepValues>) => {
      const data = event.formData ?? {};
      values.set(data);
      toStudio({ kind: 'data', key: shown.key, data });
    },
    [values, shown.key],
  );

  return (
    // As drivers see the step: in its page frame, with its stage of the journey.
    <CurrentStep.Provider value={stepById(shown.step)}>
      <Layout>
        <StepFormView form={form} initialData={shown.data} formContext={formContext} onChange={onChange} validateAtOnce>
          <button type="submit" className="button button-primary">
            {submitTextOf(form)}
          </button>
        </StepFormView>
      </Layout>
    </CurrentStep.Provider>
  );
}
