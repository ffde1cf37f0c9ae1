/**
 * A reviewed step's earlier answers (the flow's `review.answersCall`), for a driver who comes back
 * to it, e.g. asked by a reviewer to fix a field: the form is prefilled with what they sent,
 * photos are shown as already added (sent back as kept unless replaced), sensitive values show
 * their mask (kept unless retyped), and the fixes asked are shown on their fields.
 */
import { useState } from 'react';
import { isKeptPhoto } from '../../../widgets/photoStore.js';
import type { StepAnswersAnswer } from '../../shared/review.js';
import { useOpeningRead } from '../runtime/reads.js';
import type { StepValues } from '../runtime/stepValues.js';
import { storedAnswersRead } from '../runtime/stepReads.js';

export interface StoredAnswers {
  /** False while the answers (and their photos) load: the form waits, so nothing typed is overwritten. */
  ready: boolean;
  /** The form's values as sent (photos by their type, as the photo slots keep them); undefined until loaded or if never sent. */
  formData?: StepValues;
  /** Sensitive values shown by their mask: kept as long as the field still holds it. */
  masked: Record<string, unknown>;
  /** The reviewer's fixes on the fields that still hold what was sent. */
  openFixes(current: StepValues): StepAnswersAnswer['fixes'];
  /** After approval: the only fields the driver may change now (the others are shown read-only); undefined: any. */
  onlyFields?: string[];
}

export function useStoredAnswers(stepId: string, sensitiveFields: readonly string[]): StoredAnswers {
  // Read afresh each time the step opens: what was sent may have changed since.
  const [read] = useState(() => storedAnswersRead(stepId));
  const { data, error } = useOpeningRead(read, (answers) => answers);
  const answers = data?.answers ?? undefined;
  const formData = answers
    ? {
        ...answers,
        ...Object.fromEntries(
          Object.entries(data?.files ?? {})
            .filter(([field]) => isKeptPhoto(field))
            .map(([field, file]) => [field, file.mime]),
        ),
      }
    : undefined;
  const masked = Object.fromEntries(sensitiveFields.filter((field) => answers?.[field] !== undefined).map((field) => [field, answers?.[field]]));
  const fixes = data?.fixes ?? [];
  return {
    // A failed load leaves an empty form, as for a step never sent: the driver can still fill it.
    ready: read === null || data !== undefined || error !== undefined,
    formData: formData as StepValues | undefined,
    masked,
    ...(data?.onlyFields ? { onlyFields: data.onlyFields } : {}),
    openFixes: (current) => fixes.filter(({ field }) => (data?.files[field] ? isKeptPhoto(field) : current[field] === answers?.[field])),
  };
}
