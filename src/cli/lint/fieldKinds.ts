/** What kind of answer a field of a bundled step schema holds, as the lint needs to know it. */
import { isObject, type Json } from '../../shared/schemaFiles.js';

/**
 * A photo: its value is the file's content type, which its pattern accepts ("image/jpeg") where
 * it refuses words (a text field's `\S` accepts both).
 */
export function isPhotoField(field: Json | undefined): boolean {
  if (!isObject(field) || typeof field.pattern !== 'string') return false;
  try {
    const pattern = new RegExp(field.pattern, 'u');
    return pattern.test('image/jpeg') && !pattern.test('a few words');
  } catch (error) {
    // Not a regular expression: no file's pattern (the schema checks report it).
    if (error instanceof SyntaxError) return false;
    throw error;
  }
}

export const isDateField = (field: Json | undefined) => isObject(field) && field.format === 'date';
