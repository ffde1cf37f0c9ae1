/**
 * Parts of rjsf that only some kinds of form call for, left out of the browser's scripts while no
 * form does: ~11 KB (Brotli) of every step's first visit for the first four, ~3 KB for rjsf's
 * widgets no form draws.
 */
import type * as esbuild from 'esbuild';

/** Whether a JSON value has, at any depth, an object that passes `test`. */
const holds = (value: unknown, test: (object: Record<string, unknown>) => boolean): boolean =>
  typeof value === 'object' && value !== null && (test(value as Record<string, unknown>) || Object.values(value).some((each) => holds(each, test)));
const hasKey =
  (...keys: string[]) =>
  (object: Record<string, unknown>) =>
    keys.some((key) => Object.hasOwn(object, key));

/** Whether a UI schema names one of rjsf's fields (as a "ui:field"): a form may call for a field its schema alone would not. */
const namesField = (uiSchema: unknown, fields: RegExp) => new RegExp(`"(${fields.source})"`).test(JSON.stringify(uiSchema));

/**
 * Whether a form's schema or UI schema holds one of these words as a whole string (a key or a
 * value): the names by which rjsf picks one of its widgets, as a "ui:widget", in "ui:options" or
 * as a string's "format" (getWidget's map in @rjsf/utils). A title spelling one only keeps it in.
 */
const mentions =
  (...words: string[]) =>
  (schema: unknown, uiSchema: unknown) => {
    const text = JSON.stringify([schema, uiSchema]);
    return words.some((word) => text.includes(JSON.stringify(word)));
  };

/**
 * Each part with its modules (paths as rjsf imports them) and what in a form's schema or UI schema
 * calls for it; a property merely named like a keyword counts too, which only keeps a part in.
 */
const RJSF_PARTS = {
  // An "allOf" is merged with @x0k/json-schema-merge.
  allOf: { modules: /^\.\/shallowAllOfMerge\.js$/, calledFor: (schema: unknown) => holds(schema, hasKey('allOf')) },
  arrays: {
    modules: /^\.\/ArrayField(\w*Template)?\.js$/,
    calledFor: (schema: unknown, uiSchema: unknown) =>
      holds(schema, (object) => hasKey('items', 'prefixItems')(object) || [object.type].flat().includes('array')) || namesField(uiSchema, /ArrayField/),
  },
  // With the utilities that pick one of the options, each called only on a schema holding "oneOf" or "anyOf".
  alternatives: {
    modules:
      /^\.\/(MultiSchemaField(Template)?|getClosestMatchingOption|getFirstMatchingOption|findSelectedOptionInXxxOf)\.js$|^\.\.\/getOptionMatchingSimpleDiscriminator\.js$/,
    calledFor: (schema: unknown, uiSchema: unknown) => holds(schema, hasKey('oneOf', 'anyOf')) || namesField(uiSchema, /AnyOfField|OneOfField/),
  },
  layoutGrid: {
    modules: /^\.\/Layout(Grid|Header|MultiSchema)Field\.js$/,
    calledFor: (_schema: unknown, uiSchema: unknown) => namesField(uiSchema, /Layout(Grid|Header|MultiSchema)Field/),
  },
  // rjsf's own widgets beyond the text, checkbox, select and password ones every kind of field falls back to.
  fileWidget: { modules: /^\.\/FileWidget\.js$/, calledFor: mentions('file', 'files', 'data-url', 'FileWidget') },
  altDateWidgets: {
    modules: /^\.\/AltDate(Time)?Widget\.js$/,
    calledFor: mentions('alt-date', 'alt-datetime', 'AltDateWidget', 'AltDateTimeWidget'),
  },
  checkboxesWidget: { modules: /^\.\/CheckboxesWidget\.js$/, calledFor: mentions('checkboxes', 'CheckboxesWidget') },
  radioWidget: { modules: /^\.\/RadioWidget\.js$/, calledFor: mentions('radio', 'RadioWidget') },
  ratingWidget: { modules: /^\.\/RatingWidget\.js$/, calledFor: mentions('rating', 'RatingWidget') },
  textareaWidget: { modules: /^\.\/TextareaWidget\.js$/, calledFor: mentions('textarea', 'TextareaWidget') },
  rangeWidget: { modules: /^\.\/RangeWidget\.js$/, calledFor: mentions('range', 'RangeWidget') },
  timeWidgets: {
    modules: /^\.\/(Time|DateTime)Widget\.js$/,
    calledFor: mentions('time', 'datetime', 'date-time', 'TimeWidget', 'DateTimeWidget'),
  },
  colorWidget: { modules: /^\.\/ColorWidget\.js$/, calledFor: mentions('color', 'ColorWidget') },
  // rjsf's own that every form in the browser is given ours in place of (StepFormView.tsx: the
  // templates of templates.tsx, the select of widgets/index.ts): no form draws them.
  replacedByOurs: { modules: /^\.\/(ErrorList|FieldErrorTemplate|TitleField|SelectWidget)\.js$/, calledFor: () => false },
  // What rjsf's form calls only when given "omitExtraData", which ours never is (StepFormView.tsx):
  // the dropping of values no field holds, and the paths of the fields it finds them by.
  omitExtraData: {
    modules: /^\.\/(omitExtraData|toPathSchema)\.js$/,
    names: ['getUsedFormData', 'getFieldNames', 'isValueEmpty'],
    calledFor: () => false,
  },
  // The sanitizing of the values a form holds when what its schema asks for changes with them: a
  // schema with none of these keeps what it asks for whatever a driver types (rjsf's retrieveSchema).
  conditionals: {
    modules: /^\.\/sanitizeDataForNewSchema\.js$/,
    calledFor: (schema: unknown) =>
      holds(
        schema,
        (object) =>
          hasKey('if', 'dependencies', 'dependentSchemas', 'dependentRequired', 'allOf', 'oneOf', 'anyOf', '$ref', 'patternProperties')(object) ||
          (hasKey('additionalProperties')(object) && object.additionalProperties !== false),
      ),
  },
} as const satisfies Record<string, { modules: RegExp; names?: readonly string[]; calledFor: (schema: unknown, uiSchema: unknown) => boolean }>;
export type RjsfPart = keyof typeof RJSF_PARTS;

/** The optional parts of rjsf a form calls for. */
export const rjsfPartsCalledFor = (schema: unknown, uiSchema: unknown): RjsfPart[] =>
  (Object.keys(RJSF_PARTS) as RjsfPart[]).filter((part) => RJSF_PARTS[part].calledFor(schema, uiSchema));

/** The namespace of an rjsf part left out (rjsfPartsPlugin). */
const RJSF_PART_LEFT_OUT = 'rjsf-part-left-out';

/**
 * Leaves out of the browser's scripts each part of rjsf no form calls for (`inUse`, worked out as
 * each build makes the forms): in its place, a module that says so if ever called. A form given
 * one (an ops edit adding an array, say) brings the part back at the next build.
 */
export function rjsfPartsPlugin(inUse: () => ReadonlySet<RjsfPart>): esbuild.Plugin {
  return {
    name: 'rjsf-parts',
    setup(build) {
      // Only these paths: each one a plugin is asked about is a call from esbuild into this process.
      build.onResolve(
        {
          filter: new RegExp(
            Object.values(RJSF_PARTS)
              .map(({ modules }) => modules.source)
              .join('|'),
          ),
        },
        ({ path, importer }) => {
          if (!/[/\\]node_modules[/\\]@rjsf[/\\]/.test(importer)) return undefined;
          const part = (Object.keys(RJSF_PARTS) as RjsfPart[]).find((each) => RJSF_PARTS[each].modules.test(path));
          // One module in place of all of a part's.
          return part && !inUse().has(part) ? { path: part, namespace: RJSF_PART_LEFT_OUT } : undefined;
        },
      );
      build.onLoad({ filter: /.*/, namespace: RJSF_PART_LEFT_OUT }, ({ path }) => {
        // The part's modules' other exports, which rjsf imports by name, stand in the same way.
        const names: readonly string[] = (RJSF_PARTS[path as RjsfPart] as { names?: readonly string[] }).names ?? [];
        return {
          contents:
            `export default function leftOut() {\n  throw new Error(${JSON.stringify(`A form in the browser calls for rjsf's part "${path}", which the build left out as no form called for it (RJSF_PARTS, src/node/builds/rjsfParts.ts)`)});\n}\n` +
            (names.length ? `export { ${names.map((name) => `leftOut as ${name}`).join(', ')} };\n` : ''),
          loader: 'js',
        };
      });
    },
  };
}
