/**
 * A reviewed step's earlier answers (the flow's `review.answersCall`), for a driver who comes back
 * to it, e.g. asked by a reviewer to fix a field: the form is prefilled with what they sent,
 * photos are shown as already added (sent back as kept unless replaced), sensitive values show
 * their mask (kept unless retyped), and the fixes asked are shown on their fields.
 */
import useSWR from 'swr';
import { isKeptPhoto, keepPhoto } from '../../widgets/photoStore.js';
import type { StepAnswersAnswer } from '../shared/review.js';
import { callApi, getBlob } from './api.js';
import { callByName, flow } from './flow.js';
import { dataOf, useOpening } from './reads.js';
import type { FormData } from './StepFormView.js';
import { getTokenCookie } from './storage.js';

async function fetchStoredAnswers([callName, step]: [string, string]): Promise<StepAnswersAnswer> {
  const stored = await dataOf(callApi<StepAnswersAnswer>(callByName(callName), {}, { step }));
  const token = getTokenCookie();
  // The photos before the form shows: a slot is either filled with the driver's photo or empty.
  await Promise.all(
    Object.entries(stored.files).map(async ([field, file]) => {
      const photo = token ? await getBlob(file.url, token) : undefined;
      if (photo?.ok) keepPhoto(field, photo.data, file.id);
    }),
  );
  return stored;
}

export interface StoredAnswers {
  /** False while the answers (and their photos) load: the form waits, so nothing typed is overwritten. */
  ready: boolean;
  /** The form's values as sent (photos by their type, as the photo slots keep them); undefined until loaded or if never sent. */
  formData?: FormData;
  /** Sensitive values shown by their mask: kept as long as the field still holds it. */
  masked: Record<string, unknown>;
  /** The reviewer's fixes on the fields that still hold what was sent. */
  openFixes(current: FormData): StepAnswersAnswer['fixes'];
}

export function useStoredAnswers(stepId: string, sensitiveFields: readonly string[]): StoredAnswers {
  const reviewed = flow.review.steps.includes(stepId) && Boolean(getTokenCookie());
  // Read afresh each time the step opens: what was sent may have changed since.
  const opening = useOpening();
  const { data, error } = useSWR(
    reviewed ? ([flow.review.answersCall, stepId, opening] as const) : null,
    ([callName, step]) => fetchStoredAnswers([callName, step]),
    {
      revalidateOnFocus: false,
      revalidateIfStale: false,
    },
  );
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
    ready: !reviewed || data !== undefined || error !== undefined,
    formData: formData as FormData | undefined,
    masked,
    openFixes: (current) => fixes.filter(({ field }) => (data?.files[field] ? isKeptPhoto(field) : current[field] === answers?.[field])),
  };
}
