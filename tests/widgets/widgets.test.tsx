// @vitest-environment happy-dom
// The widgets as drivers meet them: in a real step form (the schemas and UI schemas of schemas/),
// typed into, pasted into and tapped, with what the screen then shows.
import { cleanup, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SWRConfig } from 'swr';
import { readPath } from '../../src/client/runtime/reads.js';
import { listPreloads } from '../../widgets/index.js';
import { getPhoto } from '../../widgets/photoStore.js';
import { STATES_PATH, statesOf } from '../../widgets/placesData.js';
import { useRemoteList } from '../../widgets/useRemoteList.js';
import { renderStepForm, servePlaces } from '../support/stepForm.js';

beforeEach(() => servePlaces());
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('a text field', () => {
  it('hands what was typed to the form before it loses the focus', async () => {
    const { values } = await renderStepForm('profile');
    // No pause between the keys and the Tab.
    const user = userEvent.setup({ delay: null });
    await user.type(screen.getByLabelText(/^First Name/), 'Alexandra');
    await user.tab();
    expect(values().firstName).toBe('Alexandra');
  });

  it('hands what was typed to the form before Enter submits it', async () => {
    const { submitted } = await renderStepForm('sign-in');
    const user = userEvent.setup({ delay: null });
    await user.type(screen.getByLabelText(/^Email/), 'driver@example.com');
    await user.type(screen.getByLabelText(/^Password/), 'Str0ng!Pass{Enter}');
    await waitFor(() => expect(submitted).toHaveBeenCalledOnce());
    expect(submitted).toHaveBeenCalledWith({ email: 'driver@example.com', password: 'Str0ng!Pass' });
  });

  it('shows each key typed at once, and the form takes the text in a transition', async () => {
    const { user, values } = await renderStepForm('profile');
    const name = screen.getByLabelText(/^Last Name/);
    await user.type(name, 'Rivers');
    expect(name).toHaveValue('Rivers');
    await waitFor(() => expect(values().lastName).toBe('Rivers'));
  });
});

describe('the code field', () => {
  it('keeps the digits of a pasted message, four at most, and offers SMS autofill', async () => {
    const { user, values } = await renderStepForm('email-code');
    const code = screen.getByRole('textbox');
    expect(code).toHaveAttribute('autocomplete', 'one-time-code');
    expect(code).toHaveAttribute('inputmode', 'numeric');
    await user.click(code);
    await user.paste('Your code is 1234. It expires in 10 minutes.');
    expect(code).toHaveValue('1234');
    // The form takes what was typed in a transition (widgets/echoFirst.tsx).
    await waitFor(() => expect(values()).toEqual({ otp: '1234' }));
  });

  it('ignores letters typed into it', async () => {
    const { user } = await renderStepForm('email-code');
    const code = screen.getByRole('textbox');
    await user.type(code, '1a2b');
    expect(code).toHaveValue('12');
  });
});

describe('the phone field', () => {
  it('shows the fixed +1 beside it and keeps the 10 national digits of what is typed', async () => {
    const { user, values } = await renderStepForm('signup');
    const phone = screen.getByLabelText(/^Phone Number/);
    expect(document.getElementById(phone.getAttribute('aria-describedby')?.split(' ').at(-1) ?? '')).toHaveTextContent(/^\+1$/);
    await user.click(phone);
    await user.paste('+1 (201) 555-0123');
    expect(phone).toHaveValue('2015550123');
    await waitFor(() => expect(values().phoneNo).toBe('2015550123'));
  });

  it('says "Phone number must be valid." while it is short, and nothing once it is whole', async () => {
    const { user } = await renderStepForm('signup');
    const phone = screen.getByLabelText(/^Phone Number/);
    expect(screen.queryByText('Phone number must be valid.')).not.toBeInTheDocument();
    await user.type(phone, '201555');
    expect(await screen.findByText('Phone number must be valid.')).toBeInTheDocument();
    expect(phone).toHaveAttribute('aria-invalid', 'true');
    await user.type(phone, '0123');
    await waitFor(() => expect(screen.queryByText('Phone number must be valid.')).not.toBeInTheDocument());
    expect(phone).not.toHaveAttribute('aria-invalid');
  });
});

describe('the password field', () => {
  it('is masked until "Show password" is pressed, and masked again by "Hide password"', async () => {
    const { user } = await renderStepForm('signup');
    const password = screen.getByLabelText(/^Password/);
    expect(password).toHaveAttribute('type', 'password');
    await user.click(screen.getAllByRole('button', { name: 'Show password' })[0] as HTMLElement);
    expect(password).toHaveAttribute('type', 'text');
    const hide = screen.getByRole('button', { name: 'Hide password' });
    expect(hide).toHaveAttribute('aria-pressed', 'true');
    await user.click(hide);
    expect(password).toHaveAttribute('type', 'password');
  });

  it('keeps the 9 digits of a pasted SSN with dashes', async () => {
    const { user, values } = await renderStepForm('profile');
    const ssn = screen.getByLabelText(/^SSN/);
    await user.click(ssn);
    await user.paste('123-45-6789');
    expect(ssn).toHaveValue('123456789');
    await waitFor(() => expect(values().SSN).toBe('123456789'));
  });
});

describe('the consent box', () => {
  it('shows its text with the documents as links that open apart, and ticks', async () => {
    const { user, values } = await renderStepForm('signup');
    const terms = screen.getByRole('link', { name: 'Terms & Conditions' });
    expect(terms).toHaveAttribute('href', 'https://onramp.example/terms');
    expect(terms).toHaveAttribute('target', '_blank');
    expect(terms).toHaveAttribute('rel', expect.stringContaining('noopener'));
    const box = screen.getByLabelText('I accept the Terms & Conditions and the Privacy Policy.');
    await user.click(box);
    expect(values().accept).toBe(true);
  });

  it('says "You must accept the Terms & Conditions" when the form is sent without it', async () => {
    const { user, submitted } = await renderStepForm('signup');
    await user.click(screen.getByRole('button', { name: 'Sign Up' }));
    // Under the box, and in the list of answers to change above the form.
    expect(await screen.findByText('You must accept the Terms & Conditions', { selector: '.field-error' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'You must accept the Terms & Conditions' })).toHaveAttribute('href', '#root_accept');
    expect(screen.getByText('You must accept the SMS Notification from the product.', { selector: '.field-error' })).toBeInTheDocument();
    expect(submitted).not.toHaveBeenCalled();
  });
});

describe('the date of birth', () => {
  it('lets the picker go no later than 18 years ago, and shows the rule until there is an error', async () => {
    const { user } = await renderStepForm('profile');
    const date = screen.getByLabelText(/^Date of Birth/);
    const today = new Date();
    const latest = new Date(Date.UTC(today.getFullYear() - 18, today.getMonth(), today.getDate()));
    expect(date).toHaveAttribute('max', latest.toISOString().slice(0, 10));
    expect(screen.getByText('You must be at least 18 years old to access the app.')).toBeInTheDocument();

    const tooYoung = `${today.getFullYear() - 17}-01-01`;
    await user.type(date, tooYoung);
    await user.tab();
    await waitFor(() => expect(date).toHaveAttribute('aria-invalid', 'true'));
    expect(screen.getAllByText('You must be at least 18 years old to access the app.')).toHaveLength(1);
  });
});

describe('the photo slot', () => {
  it('takes a photo, says so with a Remove button, and gives it up again', async () => {
    const { user, values } = await renderStepForm('profile');
    const slot = screen.getByLabelText(/^Profile photo/) as HTMLInputElement;
    expect(slot).toHaveAttribute('accept', 'image/*');
    await user.upload(slot, new File([new Uint8Array([0xff, 0xd8, 0xff, 0xe0])], 'me.jpg', { type: 'image/jpeg' }));
    const remove = await screen.findByRole('button', { name: /^Remove Profile photo/ });
    expect(values().profilePicture).toBe('image/jpeg');
    await user.click(remove);
    expect(values().profilePicture).toBeUndefined();
    expect(screen.queryByRole('button', { name: /^Remove Profile photo/ })).not.toBeInTheDocument();
  });

  it('shows the schema’s image message for a file that is not an image, and keeps none of it', async () => {
    const { user, values, submitted } = await renderStepForm('profile');
    const slot = screen.getByLabelText(/^Profile photo/) as HTMLInputElement;
    // A document picker may hand over any file despite accept="image/*".
    await userEvent.setup({ applyAccept: false }).upload(slot, new File(['%PDF-1.7'], 'licence.pdf', { type: 'application/pdf' }));
    expect(await screen.findByText('Please choose an image file (JPEG, PNG, WebP, GIF or HEIC).')).toBeInTheDocument();
    expect(values().profilePicture).toBe('application/pdf');
    expect(getPhoto('profilePicture')).toBeUndefined();
    await user.click(screen.getByRole('button', { name: 'Next' }));
    expect(submitted).not.toHaveBeenCalled();
  });
});

describe('the state and city lists', () => {
  it('lists the states, then the chosen state’s cities, fetched only once it is chosen', async () => {
    const asked = await servePlaces();
    const { user, values } = await renderStepForm('profile');
    const state = screen.getByLabelText(/^State/) as HTMLSelectElement;
    const city = screen.getByLabelText(/^City/) as HTMLSelectElement;
    expect(screen.getByText('Choose a state first.')).toBeInTheDocument();
    await waitFor(() => expect(state.disabled).toBe(false));
    expect(state.options).toHaveLength(52);
    expect(asked).toEqual(['/data/us-states.json']);

    await user.selectOptions(state, 'California');
    await waitFor(() => expect(city.disabled).toBe(false));
    expect(asked).toEqual(['/data/us-states.json', '/data/cities/CA.json']);
    await user.selectOptions(city, 'Los Angeles');
    expect(values()).toMatchObject({ state: 'CA', city: 'Los Angeles' });

    // Another state without that city: the city is dropped rather than left wrong.
    await user.selectOptions(state, 'Texas');
    await waitFor(() => expect(values().city).toBeUndefined());

    // A state chosen again shows its cities at once: each list is read once a visit.
    await user.selectOptions(state, 'California');
    expect(city.disabled).toBe(false);
    expect(asked).toEqual(['/data/us-states.json', '/data/cities/CA.json', '/data/cities/TX.json']);
  });

  it('says the list could not be loaded, and loads it on Retry once the network is back', async () => {
    await servePlaces({ down: true });
    const { user } = await renderStepForm('profile');
    expect(await screen.findByText('The list of states could not be loaded.')).toBeInTheDocument();
    await servePlaces();
    await user.click(screen.getByRole('button', { name: 'Retry' }));
    const state = screen.getByLabelText(/^State/) as HTMLSelectElement;
    await waitFor(() => expect(state.disabled).toBe(false));
    expect(screen.queryByText('The list of states could not be loaded.')).not.toBeInTheDocument();
  });
});

describe('a list begun before its widget is drawn (a step opened by its address)', () => {
  function StateCount() {
    const [list] = useRemoteList(STATES_PATH, statesOf);
    return <p>{list.status === 'ready' ? `${list.items.length} states` : list.status}</p>;
  }

  it('is read once: the widget takes the read the page began', async () => {
    const asked = await servePlaces();
    listPreloads.usState?.(readPath);
    expect(asked).toEqual(['/data/us-states.json']);
    // The app's SWRConfig: its fetcher, and swr's own cache, where the page's reads begin.
    render(
      <SWRConfig value={{ fetcher: readPath }}>
        <StateCount />
      </SWRConfig>,
    );
    expect(await screen.findByText('51 states')).toBeInTheDocument();
    expect(asked).toEqual(['/data/us-states.json']);
  });
});

describe('a list of choices (the gender)', () => {
  it('looks like the state and city lists, and is marked invalid once its message shows', async () => {
    const { user } = await renderStepForm('profile');
    const gender = screen.getByLabelText(/Gender/) as HTMLSelectElement;
    expect(gender.className).toContain('w-select__control');
    expect([...gender.options].map((option) => option.textContent)).toEqual(['Select gender', 'Male', 'Female']);
    expect(gender).not.toHaveAttribute('aria-invalid');
    await user.click(screen.getByRole('button', { name: 'Next' }));
    expect(await screen.findByText('Please select your gender.', { selector: '.field-error' })).toBeInTheDocument();
    expect(gender).toHaveAttribute('aria-invalid', 'true');
    expect(gender.className).toContain('w-select__control--invalid');
    await user.selectOptions(gender, 'Female');
    expect(gender).not.toHaveAttribute('aria-invalid');
  });
});

describe('the messages of a form', () => {
  it('shows a field’s message once it is touched and none on a field not touched yet, then every one after a submit attempt', async () => {
    const { user } = await renderStepForm('profile');
    const firstName = screen.getByLabelText(/^First Name/);
    const lastName = screen.getByLabelText(/^Last Name/);
    await user.type(firstName, 'A');
    await user.clear(firstName);
    await user.tab();
    expect(await screen.findByText('Please enter your first name')).toBeInTheDocument();
    expect(firstName).toHaveAttribute('aria-invalid', 'true');
    // The form was validated whole: the last name is empty too, but not touched yet.
    expect(screen.queryByText('Please enter your last name', { selector: '.field-error' })).not.toBeInTheDocument();
    expect(lastName).not.toHaveAttribute('aria-invalid');
    await user.click(screen.getByRole('button', { name: 'Next' }));
    expect(await screen.findByText('Please enter your last name', { selector: '.field-error' })).toBeInTheDocument();
    expect(lastName).toHaveAttribute('aria-invalid', 'true');
  });

  it('focuses the topmost field with a message after a submit, whatever its rule: a box not ticked or a pattern comes after an empty field above it', async () => {
    const { user } = await renderStepForm('signup');
    await user.click(screen.getByRole('button', { name: 'Sign Up' }));
    await waitFor(() => expect(screen.getByLabelText(/^Email/)).toHaveFocus());

    await user.type(screen.getByLabelText(/^Email/), 'driver@example.com');
    await user.type(screen.getByLabelText(/^Password/), 'Abcdef1!é');
    await user.click(screen.getByRole('button', { name: 'Sign Up' }));
    await waitFor(() => expect(screen.getByLabelText(/^Phone/)).toHaveFocus());
  });
});
