// `npm run validate [-- <schema>…]`: checks every fixture payload under tests/fixtures/ against
// its step schema and prints what disagrees. For testers adding cases and for ops staff who
// changed a rule or a message.
import { compareMessages, listFixtures, schemaMessages } from './fixtures.js';

const only = process.argv.slice(2);
const fixtures = listFixtures().filter((f) => only.length === 0 || only.includes(f.schema));
let failed = 0;
for (const fixture of fixtures) {
  const differences = compareMessages(fixture.errors, schemaMessages(fixture.schema, fixture.formData));
  if (!fixture.valid && Object.keys(fixture.errors).length === 0) differences.push('an invalid fixture must list the messages it expects');
  if (differences.length === 0) {
    console.log(`  ✓ ${fixture.file}`);
  } else {
    failed++;
    console.log(`  ✗ ${fixture.file} (${fixture.description})\n${differences.map((d) => `      ${d}`).join('\n')}`);
  }
}
console.log(`${fixtures.length - failed} passed, ${failed} failed`);
process.exit(failed > 0 || fixtures.length === 0 ? 1 : 0);
