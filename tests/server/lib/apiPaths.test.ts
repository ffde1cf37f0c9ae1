import { describe, expect, it } from 'vitest';
import { apiPathTest, loggableUrl } from '../../../src/server/lib/apiPaths.js';

describe('apiPathTest', () => {
  const isApi = apiPathTest(['/auth/sendOTP', '/driver/status/{id}', '/ip']);
  it.each(['/auth/x', '/driver/status/1', '/ip', '/ip?x=1', '/dev/outbox', '/dev', '/auth?x=/y'])('counts %s as the API', (url) =>
    expect(isApi(url)).toBe(true),
  );
  it.each(['/', '/signup', '/ipsum', '/authority', '/assets/app.js', '*', '/signup?next=/auth'])('counts %s as a page', (url) =>
    expect(isApi(url)).toBe(false),
  );

  const withAdmin = apiPathTest(['/auth/sendOTP', '/admin'], ['/admin']);
  it.each(['/admin/drivers', '/admin/drivers?status=pending', '/admin/uploads/x', '/admin/nothing'])('counts %s as the admin API', (url) =>
    expect(withAdmin(url)).toBe(true),
  );
  it.each(['/admin', '/admin/', '/admin?x=1', '/administrator'])('counts %s as the admin page (or another page)', (url) => expect(withAdmin(url)).toBe(false));
});

describe('loggableUrl', () => {
  it('leaves the token of a resume link out', () => {
    expect(loggableUrl('/3f1c2d4e-0000-4000-8000-00000000abcd/abcDEF_123-xyz')).toBe('/3f1c2d4e-0000-4000-8000-00000000abcd/[token]');
    expect(loggableUrl('/3f1c2d4e-0000-4000-8000-00000000abcd/abc%2Fdef?x=1')).toBe('/3f1c2d4e-0000-4000-8000-00000000abcd/[token]');
  });
  it.each(['/{id}/s3cr3t/', '//{id}/s3cr3t', '/{id}//s3cr3t', '/{id}/s3cr3t/more'])('leaves it out of %s, which the server serves or answers too', (shape) => {
    const id = '3f1c2d4e-0000-4000-8000-00000000abcd';
    const logged = loggableUrl(shape.replace('{id}', id));
    expect(logged).toBe(`/${id}/[token]`);
    expect(logged).not.toContain('s3cr3t');
  });
  it.each(['/driver/status/3f1c2d4e-0000-4000-8000-00000000abcd', '/admin/drivers', '/signup', '/assets/app.js'])('keeps %s', (url) =>
    expect(loggableUrl(url)).toBe(url),
  );
  it.each([
    ['/admin/drivers?status=pending&token=s3cr3t', '/admin/drivers'],
    ['/signup?email=someone%40example.com', '/signup'],
    ['/driver/status/1?', '/driver/status/1'],
  ])('leaves the query of %s out', (url, logged) => expect(loggableUrl(url)).toBe(logged));
});
