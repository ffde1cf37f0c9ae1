/**
 * The admin commands' one HTTP call to the running server (src/cli/admin.ts, adminPrivacy.ts):
 * the staff member's bearer (a key or a session), a time limit, and a failure told in one line (the server's `message`, or
 * why the server could not be reached) as an AdminApiError.
 */

export interface AdminSettings {
  /** The server's address without a trailing slash. */
  baseUrl: string;
  token: string;
}

export interface AdminIo {
  fetch: typeof fetch;
  out: (line: string) => void;
  err: (line: string) => void;
}

/** A failed admin call, in words for the terminal. */
export class AdminApiError extends Error {}

export async function adminRequest(
  settings: AdminSettings,
  io: AdminIo,
  method: 'GET' | 'POST',
  path: string,
  { body, timeoutMs }: { body?: unknown; timeoutMs: number },
): Promise<Response> {
  let response: Response;
  try {
    response = await io.fetch(`${settings.baseUrl}${path}`, {
      method,
      headers: {
        accept: 'application/json',
        authorization: `Bearer ${settings.token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    if ((error as { name?: unknown }).name === 'TimeoutError')
      throw new AdminApiError(`The server at ${settings.baseUrl} did not answer within ${timeoutMs / 1000} s.`);
    throw new AdminApiError(`Cannot reach the server at ${settings.baseUrl}: is it running (npm start)? Set ONRAMP_URL for another address.`);
  }
  if (!response.ok) {
    // A refusal that is not JSON (a proxy's error page) has no message: the status is said alone.
    const json = (await response.json().catch(() => null)) as { message?: unknown } | null;
    throw new AdminApiError(`${typeof json?.message === 'string' ? json.message : 'The request failed.'} (HTTP ${response.status})`);
  }
  return response;
}
