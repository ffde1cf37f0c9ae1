import type { RequestError } from '../runtime/reads.js';
import { isRefusal } from './adminApi.js';

/** A section's read that failed, said where the section stands; a refusal is the sign-in dialog's to say. */
export function ReadFailure({ error }: { error: RequestError | undefined }) {
  if (!error || isRefusal(error.failure.status)) return null;
  return (
    <p className="field-error" role="alert">
      {error.message}
    </p>
  );
}
