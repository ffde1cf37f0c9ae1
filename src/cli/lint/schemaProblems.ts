/**
 * Checks a file against the JSON Schema that describes it (flows/flow.schema.json for the flow,
 * schemas/meta/ for the step and UI schemas: the same files editors use to underline mistakes)
 * and turns Ajv's errors into problems that say what to do.
 *
 * Ajv reports every branch of a oneOf/anyOf: a form step with one typo would also be reported
 * as a very wrong screen step. Only the branch the data comes closest to is reported.
 */
import { createHash } from 'node:crypto';
import type Ajv from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { sharedAjv } from '../../shared/ajv.js';
import { compileCached } from './compiled.js';
import { isObject, type Json, type JsonObject } from '../../shared/schemaFiles.js';
import { isWithin, pointer, pointerKeys, suggestion, type Problems } from './problems.js';

/** A value as a message shows it, cut short. */
function show(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 37)}…` : text;
}

/** What is wrong with a regular expression, in the engine's words ("Unterminated group"). */
function regexProblem(pattern: string): string {
  try {
    new RegExp(pattern, 'u');
    return 'it is refused';
  } catch (error) {
    return (error as Error).message.replace(/^Invalid regular expression: \/.*\/\w*: /, '').toLowerCase();
  }
}

const article = (type: string) => (/^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`);

/**
 * How far a branch is from the data: its errors, and many more when the data is not even of
 * the branch's type, value or kind ("kind": "screen" for a form step).
 */
function distanceOf(errors: ErrorObject[]): number {
  const wrongShape = errors.filter(
    (e) => ((e.keyword === 'type' || e.keyword === 'enum') && e.instancePath === '') || (e.keyword === 'const' && pointerKeys(e.instancePath).length <= 1),
  );
  return errors.length + 100 * wrongShape.length;
}

export class SchemaChecker {
  /** The schema's key in the process's Ajv, by its content: the tests lint edited copies of the same file beside the shipped one. */
  private readonly id: string;
  private readonly validate: ValidateFunction;
  private readonly branches = new Map<string, ValidateFunction>();

  /**
   * @param schemaFile the describing schema's file, for "see …"
   * @param noun what an unknown key is called in messages ("keyword", "key")
   */
  constructor(
    readonly schema: JsonObject,
    private readonly schemaFile: string,
    private readonly noun: string,
  ) {
    this.id = `${schemaFile}?${createHash('sha256').update(JSON.stringify(schema)).digest('base64url')}`;
    this.validate = compileCached(schema);
  }

  /**
   * The process's one Ajv, holding the whole schema for the branches' references: only when a file
   * has errors, as a clean lint needs no compiling at all.
   */
  private get ajv(): Ajv {
    const ajv = sharedAjv();
    if (!ajv.schemas[this.id]) ajv.addSchema(this.schema, this.id);
    return ajv;
  }

  /**
   * Adds a problem for each error, except where another problem was already found and those
   * `leaveOut` says another check reports better. True when every error was left out: the data
   * has the shape the schema states, which `Shape` (its generated type) names.
   */
  check<Shape = JsonObject>(
    file: string,
    data: JsonObject,
    problems: Problems,
    leaveOut: (error: ErrorObject) => boolean = () => false,
  ): data is JsonObject & Shape {
    if (this.validate(data)) return true;
    let shaped = true;
    for (const error of this.settle(this.validate.errors ?? [])) {
      if (leaveOut(error)) continue;
      shaped = false;
      const { at, what, fix } = this.describe(error);
      if (!problems.covers(file, at)) problems.add(file, at, what, fix);
    }
    return shaped;
  }

  /** A branch of a oneOf/anyOf, compiled with its "#/…" references still pointing into the whole schema. */
  private branchValidator(branch: Json): ValidateFunction {
    const anchor = (node: Json): Json => {
      if (Array.isArray(node)) return node.map(anchor);
      if (!isObject(node)) return node;
      const copy: JsonObject = {};
      for (const [key, value] of Object.entries(node)) {
        copy[key] = key === '$ref' && typeof value === 'string' && value.startsWith('#') ? `${this.id}${value}` : anchor(value);
      }
      return copy;
    };
    const key = JSON.stringify(branch);
    let validate = this.branches.get(key);
    if (!validate) {
      validate = this.ajv.compile(anchor(branch) as JsonObject);
      this.branches.set(key, validate);
    }
    return validate;
  }

  /** The errors worth reporting: one branch per oneOf/anyOf, no "if" wrappers. */
  private settle(errors: ErrorObject[]): ErrorObject[] {
    const choices = errors.filter((e) => e.keyword === 'oneOf' || e.keyword === 'anyOf');
    // "if" and "propertyNames" only wrap the errors that say what is wrong.
    if (choices.length === 0) return errors.filter((e) => e.keyword !== 'if' && e.keyword !== 'propertyNames');
    const choice = choices.reduce((a, b) => (pointerKeys(b.instancePath).length < pointerKeys(a.instancePath).length ? b : a));
    const at = choice.instancePath;
    const branchErrors = (choice.schema as Json[]).map((branch) => {
      const validate = this.branchValidator(branch);
      return validate(choice.data) ? null : [...(validate.errors ?? [])];
    });
    let closest: ErrorObject[];
    // A oneOf fails too when several branches match: no branch is closer than another then.
    if (branchErrors.includes(null)) closest = [{ ...choice, keyword: 'severalMatch' }];
    else {
      const best = (branchErrors as ErrorObject[][]).reduce((a, b) => (distanceOf(b) < distanceOf(a) ? b : a));
      closest = best.map((e) => ({ ...e, instancePath: `${at}${e.instancePath}` }));
    }
    const asPointer = (instancePath: string) => pointer(...pointerKeys(instancePath));
    return this.settle([...errors.filter((e) => !isWithin(asPointer(e.instancePath), asPointer(at))), ...closest]);
  }

  private describe(error: ErrorObject): { at: string; what: string; fix: string } {
    const parent = error.parentSchema ?? {};
    const description = typeof parent.description === 'string' ? parent.description : undefined;
    const fallback = description ?? `see ${this.schemaFile}`;
    const at = pointer(...pointerKeys(error.instancePath), ...(error.propertyName === undefined ? [] : [error.propertyName]));
    const params = error.params as Record<string, unknown>;
    const data = error.data;
    const limit = params.limit as number;
    switch (error.keyword) {
      case 'additionalProperties': {
        const name = String(params.additionalProperty);
        const known = Object.keys(isObject(parent.properties) ? parent.properties : {});
        const near = suggestion(name, known);
        const fix = near.startsWith('did you mean') || known.length <= 12 ? near : `remove it, or see ${this.schemaFile} for what is allowed here`;
        return { at: pointer(...pointerKeys(error.instancePath), name), what: `unknown ${this.noun} "${name}"`, fix };
      }
      case 'required': {
        const name = String(params.missingProperty);
        const property = isObject(parent.properties) ? parent.properties[name] : undefined;
        const about = isObject(property) && typeof property.description === 'string' ? `: ${property.description}` : '';
        return { at, what: `"${name}" is missing`, fix: `add "${name}"${about}` };
      }
      case 'enum': {
        const allowed = (params.allowedValues as unknown[]).map(String);
        return {
          at,
          what: `${show(data)} is not allowed here`,
          fix: typeof data === 'string' ? suggestion(data, allowed) : `use one of: ${allowed.map(show).join(', ')}`,
        };
      }
      case 'const':
        return { at, what: `${show(data)} is not allowed here`, fix: `write ${show(params.allowedValue)}` };
      case 'type': {
        const type = String(params.type).replace(',', ' or ');
        const quotedValue =
          typeof data === 'string' &&
          ((/number|integer/.test(type) && data.trim() !== '' && !Number.isNaN(Number(data))) || (type.includes('boolean') && /^(true|false)$/.test(data)));
        const fix = quotedValue
          ? `write it without quotes: ${data}`
          : type === 'boolean'
            ? `write true or false${description ? ` (${description})` : ''}`
            : fallback;
        return { at, what: `${show(data)} is not ${article(type)}`, fix };
      }
      case 'minimum':
      case 'exclusiveMinimum':
        return { at, what: `${show(data)} is below the ${error.keyword === 'minimum' ? 'minimum' : 'limit'} of ${limit}`, fix: fallback };
      case 'maximum':
      case 'exclusiveMaximum':
        return { at, what: `${show(data)} is above the ${error.keyword === 'maximum' ? 'maximum' : 'limit'} of ${limit}`, fix: fallback };
      case 'minLength':
        return { at, what: limit === 1 ? 'the text is empty' : `the text is shorter than ${limit} characters`, fix: fallback };
      case 'minItems':
        return { at, what: `the list needs at least ${limit} ${limit === 1 ? 'entry' : 'entries'}`, fix: fallback };
      case 'pattern':
        if (typeof data === 'string' && error.propertyName === undefined && data.trim() === '') {
          return { at, what: 'the text is only spaces: drivers would see no words', fix: description ?? 'write the words a driver reads, in full' };
        }
        // The place's description says the form in words; the raw pattern only when there is none.
        return {
          at,
          what: `${show(error.propertyName ?? data)} is not written as ${description ? 'this place needs' : `expected (${String(params.pattern)})`}`,
          fix: fallback,
        };
      case 'format':
        if (params.format === 'regex') {
          const problem = regexProblem(String(error.propertyName ?? data));
          return {
            at,
            what: `${show(error.propertyName ?? data)} is not a regular expression: ${problem}`,
            // The u flag takes a backslash only before a character that has a meaning of its own.
            fix:
              problem === 'invalid escape'
                ? 'keep a backslash only before a character it gives a meaning to ("\\\\d", "\\\\.", "\\\\(" as the file writes them): write "-", "_" or a letter without one'
                : fallback,
          };
        }
        return { at, what: `${show(data)} is not a valid ${String(params.format)}`, fix: fallback };
      case 'severalMatch':
        return { at, what: 'this matches more than one of the shapes allowed here', fix: fallback };
      case 'uniqueItems':
        return { at, what: `entries ${String(params.j)} and ${String(params.i)} are the same`, fix: 'remove one of them' };
      default:
        return { at, what: `${show(data)}: ${error.message ?? 'is not allowed here'}`, fix: fallback };
    }
  }
}
