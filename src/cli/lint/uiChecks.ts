/**
 * A UI schema against its step schema and the widget registry: every key names a field, every
 * widget is registered, the order lists real fields (rjsf refuses to render a form whose order
 * leaves a field out without "*"). Like the schema checks, these run on the bundled files and
 * report only what the file itself writes.
 */
import { isObject, type JsonObject } from '../../shared/schemaFiles.js';
import { closest, pointer, suggestion, valueAt, type Problems } from './problems.js';

const isUiKey = (key: string) => key.startsWith('ui:') || key.startsWith('$');

export function checkUiSchema(
  file: string,
  schemaFile: string,
  source: JsonObject,
  ui: JsonObject,
  schema: JsonObject,
  widgetNames: string[],
  problems: Problems,
): void {
  const add = (keys: string[], what: string, fix: string) => {
    if (valueAt(source, keys) !== undefined) problems.add(file, pointer(...keys), what, fix);
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
    }
    const field = node['ui:field'];
    if (typeof field === 'string') {
      add([...keys, 'ui:field'], `no field "${field}" is registered`, 'remove "ui:field": Onramp registers widgets only (widgets/index.ts); use "ui:widget"');
    }

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
