import { describe, expect, it } from 'vitest';
import { lintFlow, lintProject, lintSchema, lintUiSchema } from '../../src/cli/lintProject.js';
import { screens } from '../../src/client/screens/index.js';
import { loadFlow, loadSchema, schemaNamesOf } from '../../src/shared/projectFiles.js';
import { widgets } from '../../widgets/index.js';

const widgetNames = Object.keys(widgets);
const screenNames = Object.keys(screens);

describe('npm run lint', () => {
  it('finds no problem in schemas/ and flows/', () => {
    expect(lintProject(widgetNames, screenNames)).toEqual([]);
  });

  it('names the file and place of a mistyped keyword', () => {
    const schema = { type: 'object', properties: { email: { type: 'string', maxLenght: 5 } } };
    expect(lintSchema('signup', schema)).toEqual([expect.stringMatching(/^schemas\/signup\.schema\.json: strict mode: unknown keyword: "maxLenght"/)]);
  });

  it('names a required field without a message', () => {
    const schema = { type: 'object', required: ['email'], properties: { email: { type: 'string' } } };
    expect(lintSchema('signup', schema)).toEqual(['schemas/signup.schema.json: at /errorMessage/required: no message for required field "email"']);
  });

  it('names a message for a rule that is not there', () => {
    const schema = { type: 'object', properties: { email: { type: 'string', errorMessage: { format: 'Email must be valid.' } } } };
    expect(lintSchema('signup', schema)).toEqual(['schemas/signup.schema.json: at /properties/email: errorMessage.format has no "format" rule beside it']);
  });

  it('names a widget that is not registered', () => {
    const problems = lintUiSchema('signup', { email: { 'ui:widget': 'emial' } }, { properties: { email: {} } }, widgetNames);
    expect(problems).toEqual([expect.stringContaining('schemas/signup.ui.json: at /email/ui:widget: no widget "emial" is registered')]);
  });

  it('names a step the flow leads to that does not exist', () => {
    const flow = loadFlow();
    const broken = structuredClone(flow);
    const signup = broken.steps.signup;
    if (signup?.kind === 'form') signup.next = [{ to: 'verifyEmial' }];
    const schemas = Object.fromEntries(schemaNamesOf(flow).map((name) => [name, loadSchema(name)]));
    expect(lintFlow(broken, schemas, screenNames)).toEqual(['flows/onboarding.flow.json: at /steps/signup/next/0/to: no step "verifyEmial"']);
  });

  it('names a form field that the call never sends', () => {
    const flow = loadFlow();
    const broken = structuredClone(flow);
    delete broken.calls.completeVehicle?.payload?.plateNumber;
    const schemas = Object.fromEntries(schemaNamesOf(flow).map((name) => [name, loadSchema(name)]));
    expect(lintFlow(broken, schemas, screenNames)).toEqual([
      'flows/onboarding.flow.json: at /calls/completeVehicle/payload: field "plateNumber" of schemas/vehicle.schema.json is never sent',
    ]);
  });
});
