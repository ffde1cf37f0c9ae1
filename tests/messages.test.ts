// Every message and toast of spec §2, §5 and §8 for the steps built so far stands in schemas/ or
// flows/, where operations staff edit it (a number may come from its rule: "{minLength}"), and none
// stands in the browser's or the server's code.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadFlow, loadSchema, loadUiSchema, PROJECT_ROOT, schemaNamesOf } from '../src/node/projectFiles.js';

const SPEC_MESSAGES = [
  // §5 sign-up
  'Email must be valid.',
  'Please enter your email',
  'Phone number must be valid.',
  'Phone number must be 10 digits long',
  'Please enter your phone number',
  'Password must be at least 8 characters long',
  'Password must contain at least one uppercase letter, one lowercase letter, one number, and one special character',
  'Please enter your password',
  'Passwords must match',
  'Please confirm your password',
  'You must accept the Terms & Conditions',
  'You must accept the SMS Notification from the product.',
  // §5 profile
  'Please enter your first name',
  'Please enter your last name',
  'Please enter your D.O.B',
  'Please select your gender.',
  'Please enter your SSN',
  'Please enter your Driving License Number.',
  'Please enter your street address.',
  'Please enter your city.',
  'Please enter your state.',
  'Please enter your zip code.',
  'An image is required',
  "Provide Social Security Card's Front Image.",
  "Provide Social Security Card's Back Image.",
  'You must be at least 18 years old to access the app.',
  'Please provide a valid phone number.',
  'Phone number is not valid.',
  'Phone number must be valid',
  // §5 vehicle images and vehicle
  'Provide Front Image of the vehicle',
  'Provide Rear Image of the vehicle',
  'Provide Passenger side Image of the vehicle',
  'Provide Driver Side Image of the vehicle',
  'Provide Front Interior Image of the vehicle',
  'Provide Back Interior Image of the vehicle',
  'Please enter your vehicle model',
  'Please enter your vehicle make',
  'Please enter a valid year in YYYY format',
  'Please enter your vehicle registration year',
  'Please enter your vehicle number plate.',
  'Provide Driver License Front Image.',
  'Provide Driver License Back Image.',
  'Please provide driver license expiration date.',
  'Please provide vehicle registration expiration date.',
  'Please provide proof of insurance expiration date.',
  'Provide Proof of insurance Image.',
  'Provide Vehicle Registration Card Image.',
  'You can only select a date that is 6 months ahead.',
  'Is this Wheel Chair Accessible ?',
  // §8
  'Something went wrong.',
  'something went wrong.',
  'Invalid Phone number provided. Please resignup.',
  'Token not found',
  'Login error || Firebase authentication failed',
  'Vehicle Id not found. Please re-signup.',
  'Session expired, Please relogin',
  'Email OTP Verified Successfully.',
  'Email Resent Sent Successfully.',
  'Phone OTP Verified successfully.',
  'Phone OTP Resent Sent Successfully.',
  'Personal Profile Completed Successfully.',
  'Vehicle Images Uploaded Successfully.',
  'Profile & Vehicle sent for approval.',
  // §2, §8: social sign-up, the approval and the resume screen
  'Cannot open google signin modal.',
  'Cannot open apple signin modal.',
  'Cannot open facebook signin modal.',
  'Congrats! Profile Has Been Approved.',
  'Fetching your profile progress.',
  // §2, §5, §8: summary, payment, subscription check and bank
  'Subscribe Now',
  'Confirm & Continue',
  'Card details',
  'Administrative Fees',
  'An unexpected error occured.',
  'Invalid or No Data Provided.',
  'Congrats! Your Subscription is now active',
  'Oops! Unfortunately your subscription got failed, redirecting to the subscription page again.',
  'Please enter your routing number.',
  'Routing number must be a numeric value.',
  'Routing Number must be maximum 9 characters long.',
  'Please enter your account number.',
  'Account number must be a numeric value.',
  'Account Number must be minimum 12 characters long.',
  'Account number must be maximum 17 characters long.',
  'Please provide your account holder name.',
];

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/** Every string value of some JSON values. */
function jsonStrings(values: unknown[]): Set<string> {
  const strings = new Set<string>();
  const walk = (value: unknown): void => {
    if (typeof value === 'string') strings.add(value);
    else if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === 'object') Object.values(value).forEach(walk);
  };
  values.forEach(walk);
  return strings;
}

describe('the spec’s copy', () => {
  // The files as drivers read them: a text showing a rule's value ("{minLength}") with its number.
  const steps = schemaNamesOf(loadFlow()).flatMap((name) => [loadSchema(name), loadUiSchema(name)]);
  const flows = filesUnder(join(PROJECT_ROOT, 'flows'))
    .filter((file) => file.endsWith('.json'))
    .map((file) => JSON.parse(readFileSync(file, 'utf8')) as unknown);
  const data = jsonStrings([...steps, ...flows]);

  it.each(SPEC_MESSAGES)('"%s" stands in schemas/ or flows/', (message) => {
    expect(data.has(message)).toBe(true);
  });

  it('"Year must be between X and Y" stands in schemas/ with the years as placeholders', () => {
    expect(data.has('Year must be between {min} and {max}')).toBe(true);
  });

  it('stands nowhere in the code (src/client, src/server, widgets): the server answers with the schemas’ words too', () => {
    const code = ['src/client', 'src/server', 'widgets']
      .flatMap((dir) => filesUnder(join(PROJECT_ROOT, dir)))
      .filter((file) => /\.(tsx?|css|html)$/.test(file))
      .map((file) => ({ file, text: readFileSync(file, 'utf8') }));
    const found = SPEC_MESSAGES.flatMap((message) => code.filter(({ text }) => text.includes(message)).map(({ file }) => `${message} in ${file}`));
    expect(found).toEqual([]);
  });
});

describe('flows/server-messages.json', () => {
  // A key the code uses and the file lacks fails the type check (the file's schema states each
  // key, and the types are made from it); this is the other way round.
  it('holds only messages the server answers: each key stands in its code, as "section.name" or read as .section.name', () => {
    const code = filesUnder(join(PROJECT_ROOT, 'src'))
      .filter((file) => /\.tsx?$/.test(file) && !file.includes(join('src', 'shared', 'generated')))
      .map((file) => readFileSync(file, 'utf8'))
      .join('\n');
    const messages = JSON.parse(readFileSync(join(PROJECT_ROOT, 'flows', 'server-messages.json'), 'utf8')) as Record<string, unknown>;
    const keys = Object.entries(messages).flatMap(([section, texts]) =>
      section.startsWith('$') ? [] : Object.keys(texts as Record<string, string>).map((name) => `${section}.${name}`),
    );
    expect(keys.filter((key) => !code.includes(`'${key}'`) && !code.includes(`.${key}`))).toEqual([]);
  });
});
