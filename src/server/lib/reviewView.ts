/**
 * A driver's stored answers as reviewers read them, drawn from each step's schema and UI schema:
 * the UI schema's titles and order (`ui:order`, with "*" for the rest), files as links, sensitive
 * values masked, and what changed since the last decision. A field ops staff add to a schema
 * shows here with no code change; an answer to a field a schema no longer has still shows, last,
 * under its own name.
 */
import type { Flow } from '../../shared/flow.js';
import { loadSchema, loadUiSchema } from '../../node/projectFiles.js';
import type { ReviewedField, ReviewedStep } from '../../shared/review.js';
import type { JsonObject } from '../../shared/schemaFiles.js';
import { comparableAnswer, maskedAnswers, type StepAnswers } from './answers.js';

export interface ReviewFix {
  step: string;
  field: string;
  reason: string;
}

/** Fields in the UI schema's order: `ui:order` with "*" standing for every field it does not name. */
export function orderedFields(fields: string[], order: unknown): string[] {
  if (!Array.isArray(order)) return fields;
  const named = order.filter((name): name is string => typeof name === 'string' && name !== '*');
  const rest = fields.filter((field) => !named.includes(field));
  const ordered = order.flatMap((name) => (name === '*' ? rest : fields.includes(name as string) ? [name as string] : []));
  return order.includes('*') ? ordered : [...ordered, ...rest];
}

const titleOf = (ui: JsonObject, schema: JsonObject, field: string): string => {
  const uiField = ui[field] as JsonObject | undefined;
  const property = (schema.properties as JsonObject | undefined)?.[field] as JsonObject | undefined;
  const title = uiField?.['ui:title'] ?? property?.title;
  return typeof title === 'string' && title ? title : field;
};

/** The titles of a step's fields, for a driver's list of fixes. */
export function fieldTitle(schemaName: string, field: string): string {
  return titleOf(loadUiSchema(schemaName), loadSchema(schemaName), field);
}

/**
 * The steps as the review page shows them, in the flow's order. `fileUrl` makes a file's
 * address; `mimes` has each upload's type.
 */
export function reviewedSteps(
  flow: Flow,
  stored: StepAnswers[],
  fixes: ReviewFix[],
  files: { url: (uploadId: string) => string; mime: (uploadId: string) => string },
): ReviewedStep[] {
  const stepOrder = Object.keys(flow.steps);
  return [...stored]
    .sort((a, b) => stepOrder.indexOf(a.step) - stepOrder.indexOf(b.step))
    .map((step) => {
      const schema = loadSchema(step.schemaName);
      const ui = loadUiSchema(step.schemaName);
      const shown = maskedAnswers(step.answers);
      const previous = step.reviewed ? maskedAnswers(step.reviewed.answers) : null;
      const schemaFields = Object.keys((schema.properties as JsonObject | undefined) ?? {});
      const answered = [...Object.keys(step.answers), ...Object.keys(step.files)];
      const fields = [...orderedFields(schemaFields, ui['ui:order']), ...answered.filter((field) => !schemaFields.includes(field))].filter((field) =>
        answered.includes(field),
      );
      return {
        step: step.step,
        // The flow's name for staff, one case across the page; the driver's page keeps its own (the UI schema's).
        title: flow.steps[step.step]?.title ?? step.step,
        schema: { name: step.schemaName, version: step.schemaVersion },
        submittedAt: step.submittedAt.toISOString(),
        reviewed: flow.review.steps.includes(step.step),
        fields: fields.map((field): ReviewedField => {
          const fix = fixes.find((candidate) => candidate.step === step.step && candidate.field === field)?.reason;
          const uploadId = step.files[field];
          if (uploadId !== undefined) {
            const before = step.reviewed?.files[field];
            const changed = step.reviewed !== null && before !== uploadId;
            return {
              field,
              title: titleOf(ui, schema, field),
              kind: 'file',
              value: null,
              file: { url: files.url(uploadId), mime: files.mime(uploadId) },
              // The file it replaced is gone (replaced files are removed), so only the change shows.
              changed,
              ...(fix ? { fix } : {}),
            };
          }
          const value = step.answers[field];
          const sensitive = shown[field] !== value;
          const changed = step.reviewed !== null && comparableAnswer(step.reviewed.answers[field]) !== comparableAnswer(value);
          return {
            field,
            title: titleOf(ui, schema, field),
            kind: sensitive ? 'sensitive' : 'text',
            value: shown[field] ?? null,
            changed,
            ...(changed ? { previous: previous?.[field] ?? null } : {}),
            ...(fix ? { fix } : {}),
          };
        }),
      };
    });
}
