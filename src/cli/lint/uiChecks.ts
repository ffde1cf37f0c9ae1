/**
 * A UI schema against its step schema and the widget registry: every key names a field, every
 * widget is registered, the order lists real fields (rjsf refuses to render a form whose order
 * leaves a field out without "*"). Like the schema checks, these run on the bundled files and
 * report only what the file itself writes.
 */
import { fillPlaceholders, placeholdersIn } from '../../shared/placeholders.js';
import { ruleKeywordsIn, ruleValuesOf } from '../../shared/ruleValues.js';
import { isObject, type Json, type JsonObject } from '../../shared/schemaFiles.js';
import { WIDGET_VALUES, type WidgetName } from '../../shared/registries.js';
import { STORAGE_KEYS } from '../../shared/storageKeys.js';
import { compiledOnce } from './compiled.js';
import { isDateField, isPhotoField } from './fieldKinds.js';
import { patternLengths } from './patternLengths.js';
import { closest, pointer, suggestion, valueAt, type Problems } from './problems.js';
import { checkText } from './textChecks.js';

/** Reports a problem (or a warning) at the keys of a place the file itself writes. */
type Report = (keys: string[], what: string, fix: string) => void;

const isUiKey = (key: string) => key.startsWith('ui:') || key.startsWith('$');

/** UI keys whose value is a name for the code, not words for the driver. */
const NOT_TEXT = new Set(['ui:widget', 'ui:field', 'ui:autocomplete', 'ui:inputType', 'ui:order', '$comment']);

/** Every text of a UI node for the driver, with its keys; a field's own entries are left to that field. */
function textsOf(node: Json, keys: string[], isField: (key: string) => boolean, found: { keys: string[]; text: string }[] = []) {
  if (typeof node === 'string') found.push({ keys, text: node });
  else if (Array.isArray(node)) node.forEach((item, i) => textsOf(item, [...keys, String(i)], isField, found));
  else if (isObject(node)) {
    for (const [key, value] of Object.entries(node)) if (!NOT_TEXT.has(key) && !isField(key)) textsOf(value, [...keys, key], () => false, found);
  }
  return found;
}

/** The sample value a placeholder shows, if it shows one: "e.g. Toyota", "2015550123", "you@example.com". */
function sampleIn(placeholder: string): string | undefined {
  const example = /\be\.g\.\s*(.+)$/.exec(placeholder)?.[1];
  if (example) return example.trim();
  return /^[\d\s+().-]+$/.test(placeholder) || /^\S+@\S+$/.test(placeholder) ? placeholder : undefined;
}

/** Whether a sample passes the field's rules (its messages aside); a schema Ajv refuses has its own problem. */
function acceptedBy(fieldSchema: JsonObject, sample: string): boolean {
  const { errorMessage: _messages, ...rules } = fieldSchema;
  return compiledOnce(rules)?.(sample) ?? true;
}

export function checkUiSchema(
  file: string,
  schemaFile: string,
  source: JsonObject,
  ui: JsonObject,
  schema: JsonObject,
  { widgetNames, judgeInputs }: { widgetNames: string[]; judgeInputs: boolean },
  problems: Problems,
): void {
  const add: Report = (keys, what, fix) => {
    if (valueAt(source, keys) !== undefined) problems.add(file, pointer(...keys), what, fix);
  };
  const warn: Report = (keys, what, fix) => {
    if (valueAt(source, keys) !== undefined) problems.warn(file, pointer(...keys), what, fix);
  };

  const checkNode = (node: JsonObject, schemaNode: JsonObject, keys: string[]) => {
    const properties = isObject(schemaNode.properties) ? schemaNode.properties : {};
    const fields = Object.keys(properties);

    // A field renamed in the schema only: the one field without an entry is what the key meant.
    const withoutEntry = fields.filter((f) => !Object.hasOwn(node, f));
    for (const [key, value] of Object.entries(node)) {
      if (isUiKey(key)) continue;
      const fieldSchema = properties[key];
      if (!Object.hasOwn(properties, key) || !isObject(fieldSchema)) {
        const near = closest(key, fields) ?? (withoutEntry.length === 1 ? withoutEntry[0] : undefined);
        add([...keys, key], `"${key}" is not a field of ${schemaFile}`, near ? `did you mean "${near}"?` : `remove it, or add the field to ${schemaFile}`);
      } else if (isObject(value)) {
        checkNode(value, fieldSchema, [...keys, key]);
      }
    }

    const widget = node['ui:widget'];
    if (typeof widget === 'string' && !widgetNames.includes(widget)) {
      add([...keys, 'ui:widget'], `no widget "${widget}" is registered`, `${suggestion(widget, widgetNames)} (widgets/index.ts)`);
    } else if (keys.length > 0) {
      checkWidgetFits(typeof widget === 'string' ? widget : undefined, schemaNode, [...keys, 'ui:widget'], add);
    }
    const field = node['ui:field'];
    if (typeof field === 'string') {
      add([...keys, 'ui:field'], `no field "${field}" is registered`, 'remove "ui:field": Onramp registers widgets only (widgets/index.ts); use "ui:widget"');
    }

    const isField = (key: string) => Object.hasOwn(properties, key);
    const options = isObject(node['ui:options']) ? node['ui:options'] : {};
    const links = isObject(options.links) ? Object.keys(options.links) : [];
    // A field's texts may show its rules' numbers; the form's own texts a stored value ("{storage.email}").
    const rules = keys.length > 0 ? ruleValuesOf(schemaNode) : {};
    const offered = keys.length > 0 ? [...ruleKeywordsIn(schemaNode), ...links] : STORAGE_KEYS.map((key) => `storage.${key}`);
    for (const { keys: at, text } of textsOf(node, keys, isField)) checkText(text, { offered, rules }, (what, fix) => add(at, what, fix));
    // The page the server draws knows nothing of the device: a description naming a value kept there reads its words without it until then.
    const description = node['ui:description'];
    if (keys.length === 0 && typeof description === 'string' && placeholdersIn(description).length > 0) {
      const unfilled = node['ui:descriptionUnfilled'];
      if (typeof unfilled !== 'string') {
        add(
          ['ui:description'],
          `the page the server draws knows no {${placeholdersIn(description)[0]}}: drivers would read a blank there until the page's scripts run`,
          'add "ui:descriptionUnfilled": the same words without the value',
        );
      } else if (placeholdersIn(unfilled).length > 0) {
        add(['ui:descriptionUnfilled'], `the words without the value name {${placeholdersIn(unfilled)[0]}}`, 'write them without any placeholder');
      }
    }

    if (keys.length > 0 && judgeInputs) checkInput(node, schemaNode, keys, add, warn);

    const order = node['ui:order'];
    if (Array.isArray(order) && fields.length > 0) {
      const missing = fields.filter((f) => !order.includes(f));
      order.forEach((entry, i) => {
        if (typeof entry === 'string' && entry !== '*' && !fields.includes(entry)) {
          // A field renamed in the schema only: the one field left out is what the order meant.
          const near = closest(entry, fields) ?? (missing.length === 1 ? missing[0] : undefined);
          add([...keys, 'ui:order', String(i)], `"${entry}" is not a field of ${schemaFile}`, near ? `did you mean "${near}"?` : 'remove it from the order');
        }
      });
      if (!order.includes('*') && missing.length > 0) {
        add(
          [...keys, 'ui:order'],
          `the order leaves out ${missing.map((f) => `"${f}"`).join(', ')}, so the form cannot be shown`,
          `add ${missing.length === 1 ? 'it' : 'them'} to the order, or "*" where the fields not listed go`,
        );
      }
    }
  };

  checkNode(ui, schema, []);
}

/** A widget fills the kind of value its field holds; a photo field needs the photo widget (nothing else picks a file). */
function checkWidgetFits(widget: string | undefined, field: JsonObject, at: string[], add: Report): void {
  const photo = isPhotoField(field);
  if (widget === undefined || !Object.hasOwn(WIDGET_VALUES, widget)) {
    if (photo) add(at.slice(0, -1), 'this field holds a photo, and only the "photo" widget lets a driver pick one', 'add "ui:widget": "photo"');
    return;
  }
  const fits = WIDGET_VALUES[widget as WidgetName];
  const kind = photo
    ? 'a photo'
    : isDateField(field)
      ? 'a date'
      : field.type === 'boolean'
        ? 'true or false'
        : `${field.type === 'string' ? 'a text' : `a ${String(field.type)}`}`;
  const wrong =
    field.type !== undefined && field.type !== fits.type ? true : fits.holds === 'photo' ? !photo : fits.holds === 'date' ? !isDateField(field) : photo;
  if (wrong) {
    const holds = photo ? 'photo' : isDateField(field) ? 'date' : undefined;
    const suitable = Object.entries(WIDGET_VALUES)
      .filter(([, value]) => value.type === field.type && value.holds === holds)
      .map(([name]) => `"${name}"`);
    add(
      at,
      `the "${widget}" widget can't fill this field, which holds ${kind}`,
      suitable.length > 0 ? `use ${suitable.length === 1 ? suitable[0] : `one of ${suitable.join(', ')}`}, or none` : 'remove "ui:widget"',
    );
  }
}

/** A field's input against its rules: the cap lets a valid value be typed, the placeholder's sample passes, the labels pair with the choices. */
function checkInput(node: JsonObject, fieldSchema: JsonObject, keys: string[], add: Report, warn: Report): void {
  const options = isObject(node['ui:options']) ? node['ui:options'] : {};
  const cap = options.maxLength;
  const lengths = typeof fieldSchema.pattern === 'string' ? patternLengths(fieldSchema.pattern) : undefined;
  const needed = Math.max(typeof fieldSchema.minLength === 'number' ? fieldSchema.minLength : 0, lengths?.min ?? 0);
  if (typeof cap === 'number' && cap < needed) {
    add(
      [...keys, 'ui:options', 'maxLength'],
      `the input stops at ${cap} characters, but the field needs at least ${needed}: nobody can type a value that passes`,
      `raise it to ${needed} or more`,
    );
  }

  const placeholder = node['ui:placeholder'];
  const sample = typeof placeholder === 'string' ? sampleIn(fillPlaceholders(placeholder, ruleValuesOf(fieldSchema))) : undefined;
  if (sample !== undefined && !acceptedBy(fieldSchema, sample)) {
    add([...keys, 'ui:placeholder'], `the placeholder shows "${sample}", which this field refuses`, 'show a sample the field accepts, or change the rule');
  }

  const names = node['ui:enumNames'];
  const values = fieldSchema.enum;
  if (Array.isArray(names) && Array.isArray(values) && names.length < values.length) {
    // rjsf shows a choice without a label as its value, as it is written: nothing is shown for another.
    const unlabelled = values.slice(names.length).map((value) => JSON.stringify(value));
    warn(
      [...keys, 'ui:enumNames'],
      `${unlabelled.join(', ')} ${unlabelled.length === 1 ? 'has' : 'have'} no label, so the list shows ${unlabelled.length === 1 ? 'it' : 'them'} as written in "enum"`,
      `add ${unlabelled.length === 1 ? 'its label' : 'their labels'} at the end of "ui:enumNames", in the order of "enum"`,
    );
  } else if (Array.isArray(names) && Array.isArray(values) && names.length > values.length) {
    add(
      [...keys, 'ui:enumNames'],
      `${names.length} labels for ${values.length} value${values.length === 1 ? '' : 's'} of "enum": labels pair with values by their place, so a label is shown for no choice, and a value removed above leaves the choices after it showing the next one's label`,
      'give one label per value of "enum", in the same order',
    );
  } else if (Array.isArray(names) && Array.isArray(values)) {
    // Labels pair with values by their place: a label that is another value's own name is in the wrong place.
    const nameOf = (value: Json) => String(value).trim().toLowerCase();
    const misplaced = names.findIndex((name, i) => {
      const owner = values.findIndex((value) => nameOf(value) === nameOf(name));
      return owner !== -1 && owner !== i;
    });
    if (misplaced !== -1) {
      const label = String(names[misplaced]);
      const inOrder = values.map((value) => names.find((name) => nameOf(name) === nameOf(value)) ?? names[values.indexOf(value)]);
      add(
        [...keys, 'ui:enumNames'],
        `the labels are in another order than "enum": "${label}" is shown for ${JSON.stringify(values[misplaced])}, so a driver who picks "${label}" is sent as ${JSON.stringify(values[misplaced])}`,
        `write them in the order of "enum": [${inOrder.map((name) => JSON.stringify(name)).join(', ')}]`,
      );
    }
  }
}
