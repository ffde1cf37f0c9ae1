/**
 * "Please sign in again" over the page (the flow's `account.signInAgain`): the sign-in step's
 * own form and social buttons in a modal dialog, for when the server says the session ended or a
 * change needs a recent sign-in. The page underneath keeps what the driver typed and sends it
 * again once they are signed in.
 */
import { Suspense, use, useState } from 'react';
import { toast } from '../ui/toast.js';
import { Dialog } from '../ui/Dialog.js';
import { flow, isFormStep, stepById } from '../runtime/flow.js';
import { SocialSignIn } from './socialSignInChunk.js';
import { loadStepForm, StepFormView, submitTextOf } from './StepFormView.js';
import { getItem } from '../runtime/storage.js';
import { followResume, sendStep, storeReturningDriver, type Navigation } from '../runtime/stepFlow.js';
import { useLocale } from '../runtime/locale.js';
import { useStepFormState } from './useStepFormState.js';
import { reportFault } from '../runtime/faults.js';

interface SignInAgainProps {
  /** Why the sign-in is asked for, in the words of the answer that asked (the flow's `messages.sessionExpired`, or `messages.tokenNotFound`). */
  reason: string;
  /** Signed in: as the driver of this page (`sameDriver`), or as someone else, who goes to their own step. */
  onSignedIn: (sameDriver: boolean, navigation: Navigation) => void;
  onCancel: () => void;
}

export function SignInAgainDialog(props: SignInAgainProps) {
  const copy = flow.account.signInAgain;
  return (
    <Dialog labelledBy="sign-in-again-title" onCancel={props.onCancel}>
      <h2 id="sign-in-again-title">{copy.title}</h2>
      <p className="sign-in-again-reason">{props.reason}</p>
      <p>{copy.message}</p>
      <Suspense fallback={<span className="spinner" aria-hidden="true" />}>
        <SignInForm {...props} />
      </Suspense>
    </Dialog>
  );
}

function SignInForm({ onSignedIn, onCancel }: SignInAgainProps) {
  const step = stepById(flow.account.signIn);
  if (!isFormStep(step)) throw new Error(`The flow's account.signIn must name a form step, not "${flow.account.signIn}"`);
  const form = use(loadStepForm(step.schema, useLocale()));
  const state = useStepFormState();
  const [busy, setBusy] = useState(false);

  const signedIn = async (answer: Record<string, unknown>) => {
    const driverId = getItem('driver_id');
    if (driverId === undefined || driverId === answer.driverId) {
      storeReturningDriver(answer);
      onSignedIn(true, { to: window.location.pathname });
    } else {
      onSignedIn(false, await followResume(answer));
    }
  };

  return (
    <>
      <StepFormView
        form={form}
        titled={false}
        formContext={state.formContext}
        onChange={state.onChange}
        onBlur={state.touch}
        onError={state.countSubmit}
        onSubmit={async ({ formData }) => {
          state.countSubmit();
          setBusy(true);
          try {
            const sent = await sendStep(flow.account.signIn, step, formData ?? {});
            if (!sent.ok) toast.error(sent.message);
            else if (!sent.result.ok) toast.error(sent.result.message ?? flow.messages.requestFailed);
            else await signedIn(sent.result.data);
          } catch (error) {
            // The API's refusals come back as results; what throws is Firebase, a chunk that did not load, or a fault of our code
            // (reported): the driver may try again.
            reportFault(error);
            toast.error(flow.messages.requestFailed);
          } finally {
            setBusy(false);
          }
        }}
      >
        <button type="submit" className="button button-primary" disabled={busy} aria-busy={busy}>
          {busy && <span className="spinner" aria-hidden="true" />}
          {submitTextOf(form)}
        </button>
      </StepFormView>
      {step.social && flow.social && <SocialSignIn social={flow.social} onSignedIn={(answer) => void signedIn(answer)} />}
      <button type="button" className="button button-secondary" onClick={onCancel}>
        {flow.account.signInAgain.cancel}
      </button>
    </>
  );
}
