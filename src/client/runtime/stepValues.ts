/** A form step's values as the form holds them, field by field (what a draft keeps, what a step sends). */
export type StepValues = Record<string, unknown>;
