import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { callApi, getBlob, request } from '../../../src/client/runtime/api.js';
import { callByName, flow } from '../../../src/client/runtime/flow.js';
import { dataOf, RequestError } from '../../../src/client/runtime/reads.js';

const fetchMock = vi.fn<(path: string, init: RequestInit) => Promise<Response>>();
const jsonAnswer = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
const sent = () => {
  const [path, init] = fetchMock.mock.calls[0] ?? [];
  return { path, method: init?.method, headers: init?.headers as Record<string, string>, body: init?.body };
};

beforeEach(() => vi.stubGlobal('fetch', fetchMock));
afterEach(() => {
  fetchMock.mockReset();
  vi.unstubAllGlobals();
});

describe('request', () => {
  it('sends JSON with the bearer and answers the body as data', async () => {
    fetchMock.mockResolvedValue(jsonAnswer(200, { drivers: [], next: null }));
    const result = await request<{ drivers: unknown[]; next: string | null }>('/admin/drivers?status=pending', {
      method: 'POST',
      bearer: 'admin-token',
      body: { reviewVersion: 3 },
    });
    expect(result).toEqual({ ok: true, status: 200, data: { drivers: [], next: null } });
    expect(sent()).toEqual({
      path: '/admin/drivers?status=pending',
      method: 'POST',
      headers: { Accept: 'application/json', 'Accept-Language': 'en', Authorization: 'Bearer admin-token', 'Content-Type': 'application/json' },
      body: '{"reviewVersion":3}',
    });
  });

  it('answers an empty object for a success without a body, and sends no bearer without a token', async () => {
    fetchMock.mockResolvedValue(new Response(null, { status: 204 }));
    await expect(request('/somewhere')).resolves.toEqual({ ok: true, status: 204, data: {} });
    expect(sent().headers).toEqual({ Accept: 'application/json', 'Accept-Language': 'en' });
  });

  it('reads the server’s message and field errors from a failure', async () => {
    fetchMock.mockResolvedValue(jsonAnswer(400, { message: 'Please check the form.', errors: { email: ['Please enter your email'] } }));
    await expect(request('/auth/signIn', { method: 'POST', body: {} })).resolves.toEqual({
      ok: false,
      status: 400,
      message: 'Please check the form.',
      errors: { email: ['Please enter your email'] },
      data: { message: 'Please check the form.', errors: { email: ['Please enter your email'] } },
    });
  });

  it('has no message when the server gave none, so the caller picks its own', async () => {
    fetchMock.mockResolvedValue(new Response('Bad Gateway', { status: 502 }));
    await expect(request('/driver/status/1')).resolves.toEqual({ ok: false, status: 502, message: undefined, errors: undefined, data: {} });
  });

  it('ends a request that hangs with the flow’s timed-out message', async () => {
    fetchMock.mockImplementation((_path, init) => new Promise((_resolve, reject) => init.signal?.addEventListener('abort', () => reject(init.signal?.reason))));
    await expect(request('/slow', { timeoutMs: 10 })).resolves.toEqual({ ok: false, status: 0, timedOut: true, message: flow.messages.timedOut });
  });

  it('answers status 0 with the flow’s connection-lost message when the network fails', async () => {
    fetchMock.mockRejectedValue(new TypeError('Failed to fetch'));
    await expect(request('/offline')).resolves.toEqual({
      ok: false,
      status: 0,
      timedOut: false,
      message: 'The connection dropped and nothing was sent. What you entered is kept: check your connection, then try again.',
    });
  });
});

describe('callApi', () => {
  it('fills the path, and sends a multipart call’s payload as form data, photos named by their type', async () => {
    fetchMock.mockResolvedValue(jsonAnswer(200, { success: true }));
    const photo = new Blob(['jpeg bytes'], { type: 'image/jpeg' });
    const call = { ...callByName('completeVehicle'), path: '/driver/{id}/vehicle' };
    await callApi(call, { vehicleMake: 'Toyota', seats: 4, plate: null, photo }, { id: 'a b' }, 'session-token');
    const { path, method, headers, body } = sent();
    expect([path, method, headers]).toEqual([
      '/driver/a%20b/vehicle',
      'POST',
      { Accept: 'application/json', 'Accept-Language': 'en', Authorization: 'Bearer session-token' },
    ]);
    const form = body as FormData;
    expect([form.get('vehicleMake'), form.get('seats'), form.has('plate')]).toEqual(['Toyota', '4', false]);
    expect((form.get('photo') as File).name).toBe('photo.jpeg');
  });
});

describe('a flow call the browser keeps no token for', () => {
  it('is not sent, and answers spec §8’s "Token Not Found" as the server would, asking for a sign-in', async () => {
    // No browser storage here: neither the token cookie nor local storage holds a token.
    for (const name of ['completeVehicle', 'completeVehicleDocs', 'sendPhoneCode', 'driverStatus']) {
      await expect(callApi(callByName(name), {}, { id: 'driver' })).resolves.toEqual({
        ok: false,
        status: 401,
        message: 'Token Not Found',
        data: { message: 'Token Not Found', reason: 'signInAgain' },
      });
    }
    expect(fetchMock).not.toHaveBeenCalled();
    // The server's own answer to a request without a token keeps the other spelling.
    expect(flow.messages.tokenMissing).toBe('Token not found');
  });

  it('is sent without a bearer when the flow marks it tokenOptional (a sign-up, a sign-in)', async () => {
    fetchMock.mockResolvedValue(jsonAnswer(200, { success: true }));
    for (const name of ['driverEmailSignUp', 'driverSocialSignup', 'signIn']) {
      fetchMock.mockClear();
      await expect(callApi(callByName(name), {})).resolves.toMatchObject({ ok: true });
      expect(sent().headers.Authorization).toBeUndefined();
    }
  });
});

describe('getBlob', () => {
  it('answers the bytes, read with the bearer', async () => {
    fetchMock.mockResolvedValue(new Response(new Blob(['png bytes'], { type: 'image/png' })));
    const result = await getBlob('/uploads/1', 'admin-token');
    expect(result.ok && (await result.data.text())).toBe('png bytes');
    expect(sent().headers.Authorization).toBe('Bearer admin-token');
  });
});

describe('dataOf (the fetchers of swr)', () => {
  it('answers the data of a success', async () => {
    fetchMock.mockResolvedValue(jsonAnswer(200, { fixtures: [] }));
    await expect(dataOf(request('/admin/fixtures'))).resolves.toEqual({ fixtures: [] });
  });

  it('throws the server’s message, or the fallback, with the failure', async () => {
    fetchMock.mockResolvedValueOnce(jsonAnswer(401, { message: 'An admin token is required.' }));
    fetchMock.mockResolvedValueOnce(new Response(null, { status: 500 }));
    const refused = await dataOf(request('/admin/fixtures')).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(RequestError);
    expect([(refused as RequestError).message, (refused as RequestError).failure.status]).toEqual(['An admin token is required.', 401]);
    await expect(dataOf(request('/admin/fixtures'), 'Could not load this image.')).rejects.toThrow('Could not load this image.');
  });
});
