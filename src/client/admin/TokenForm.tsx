import { useState, type FormEvent } from 'react';

/** Asks for the admin token (the review page's and the studio's); `refusal` says why the last one was refused. */
export function TokenForm({
  heading,
  submitText,
  refusal,
  onOpen,
}: {
  heading: string;
  submitText: string;
  refusal?: string;
  onOpen: (token: string) => void;
}) {
  const [token, setToken] = useState('');

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const trimmed = token.trim();
    if (trimmed) onOpen(trimmed);
  }

  return (
    <form className="admin-token-form" onSubmit={submit}>
      <h2>{heading}</h2>
      {refusal && (
        <p className="field-error" role="alert">
          {refusal}
        </p>
      )}
      <label htmlFor="admin-token">Admin token</label>
      <input
        id="admin-token"
        className="admin-input"
        type="password"
        autoComplete="off"
        autoFocus
        required
        value={token}
        onChange={(event) => setToken(event.target.value)}
      />
      <button type="submit" className="button button-primary" disabled={!token.trim()}>
        {submitText}
      </button>
    </form>
  );
}
