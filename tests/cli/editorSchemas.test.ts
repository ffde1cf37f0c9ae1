import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EDITOR_SCHEMAS } from '../../src/cli/lintProject.js';
import { createAjv } from '../../src/shared/ajv.js';
import { customKeywords } from '../../src/shared/keywords.js';
import { PROJECT_ROOT } from '../../src/node/projectFiles.js';
import type { JsonObject } from '../../src/shared/schemaFiles.js';
import { widgets } from '../../widgets/index.js';

type Node = { [key: string]: Node } & { enum?: string[]; const?: string; allOf?: Node[] };
const read = (file: string) => JSON.parse(readFileSync(join(PROJECT_ROOT, file), 'utf8')) as Node;
const stepMeta = read(EDITOR_SCHEMAS.step);
const uiMeta = read(EDITOR_SCHEMAS.ui);
const registered = Object.keys(widgets).sort();
const schemaFiles = readdirSync(join(PROJECT_ROOT, 'schemas')).map((name) => `schemas/${name}`);

describe('the editor schemas (schemas/meta/)', () => {
  it('offer exactly the widgets of widgets/index.ts', () => {
    expect([...(uiMeta.definitions!.field!.properties!['ui:widget']!.enum ?? [])].sort()).toEqual(registered);
  });

  it("describe each widget's ui:options once", () => {
    const described = (uiMeta.definitions!.field!.allOf ?? []).map((branch) => branch.if?.properties?.['ui:widget']?.const).filter(Boolean);
    expect(described.sort()).toEqual(registered);
  });

  it('know every keyword of src/shared/keywords.ts', () => {
    for (const { keyword } of customKeywords) expect(stepMeta.properties, String(keyword)).toHaveProperty(String(keyword));
  });

  it('allow only keywords the validators know', () => {
    const known = Object.keys(createAjv({ strict: true }).RULES.keywords);
    expect(Object.keys(stepMeta.properties!).filter((keyword) => !known.includes(keyword))).toEqual([]);
  });

  it('offer exactly the formats the validators know', () => {
    expect([...(stepMeta.properties!.format!.enum ?? [])].sort()).toEqual(Object.keys(createAjv().formats).sort());
  });

  it('accept every shipped step schema, UI schema and the flow', () => {
    const ajv = createAjv();
    const validators: [string, ReturnType<typeof ajv.compile>][] = [
      ['.schema.json', ajv.compile(stepMeta as unknown as JsonObject)],
      ['.ui.json', ajv.compile(uiMeta as unknown as JsonObject)],
      ['.flow.json', ajv.compile(read(EDITOR_SCHEMAS.flow) as unknown as JsonObject)],
    ];
    const files = [...schemaFiles, 'flows/onboarding.flow.json'];
    for (const [suffix, validate] of validators) {
      const matching = files.filter((file) => file.endsWith(suffix));
      expect(matching.length).toBeGreaterThan(0);
      for (const file of matching) expect(validate(read(file)) ? [] : validate.errors, file).toEqual([]);
    }
  });

  it('are associated with the files in the editor settings', () => {
    const settings = read('.vscode/settings.json') as unknown as { 'json.schemas': { fileMatch: string[]; url: string }[] };
    expect(settings['json.schemas']).toEqual([
      { fileMatch: ['/schemas/*.schema.json'], url: `./${EDITOR_SCHEMAS.step}` },
      { fileMatch: ['/schemas/*.ui.json'], url: `./${EDITOR_SCHEMAS.ui}` },
      { fileMatch: ['/flows/*.flow.json'], url: `./${EDITOR_SCHEMAS.flow}` },
      { fileMatch: ['/flows/notices.json'], url: `./${EDITOR_SCHEMAS.notices}` },
    ]);
  });
});
