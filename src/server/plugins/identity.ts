/**
 * Who signed in: firebase-admin checks the Firebase ID token the client got at sign-up. The
 * local default is the Firebase Auth emulator (firebase.json at the repo root); production
 * talks to Firebase itself. The same code runs in both; only FIREBASE_AUTH_EMULATOR_HOST differs.
 */
import { randomUUID } from 'node:crypto';
import { deleteApp, initializeApp } from 'firebase-admin/app';
import { getAuth } from 'firebase-admin/auth';
import fp from 'fastify-plugin';
import { refusal } from '../serverMessages.js';

export interface SignedInUser {
  uid: string;
  /** Lower-cased; null when the account has no email. */
  email: string | null;
  emailVerified: boolean;
  /** Firebase's sign_in_provider: "password", "google.com", "apple.com", "facebook.com", ... */
  provider: string;
  /** When the user signed in with their password or provider (the token's auth_time), not when the token was refreshed. */
  authTime: Date;
}

export interface Identity {
  /** The user of a valid, unrevoked ID token of our project; otherwise throws a 401. */
  verify(idToken: string): Promise<SignedInUser>;
  /**
   * Since when the user's tokens count (Firebase moves it on a new password or a revocation);
   * null when Firebase keeps no such time, and now when the user is gone from Firebase (deleted in
   * its console: none of their tokens counts any more). Throws a 503 when Firebase can't be reached.
   */
  tokensValidSince(uid: string): Promise<Date | null>;
  /**
   * Deletes the user's Firebase account (an erasure, routes/adminPrivacy.ts); an account that is
   * already gone counts as deleted. Throws a 503 when Firebase can't be reached.
   */
  deleteUser(uid: string): Promise<void>;
  /**
   * The Firebase account of this email, created (without a password, or with `password`) when
   * there is none: `created` says which. Adding a staff member makes their account this way. Given
   * `password`, an existing account is given it too (the local ready-made owner's, main.ts).
   */
  ensureAccount(email: string, options?: { password?: string; emailVerified?: boolean }): Promise<{ uid: string; created: boolean }>;
}

declare module 'fastify' {
  interface FastifyInstance {
    identity: Identity;
  }
}

/** Token problems (401) as opposed to Firebase being unreachable (503). */
const isTokenProblem = (code: string) => code.startsWith('auth/') && code !== 'auth/internal-error';

/** The header of a JWT, or null when the text is not one. */
function jwtHeader(token: string): Record<string, unknown> | null {
  try {
    const header: unknown = JSON.parse(Buffer.from(token.split('.')[0] ?? '', 'base64url').toString('utf8'));
    return typeof header === 'object' && header !== null && !Array.isArray(header) ? (header as Record<string, unknown>) : null;
  } catch (error) {
    // Not JSON: no token's header, which the caller refuses as such.
    if (error instanceof SyntaxError) return null;
    throw error;
  }
}

/** What every real Firebase ID token has: an RS256 signature by one of Google's keys. */
const looksSigned = (token: string) => {
  const header = jwtHeader(token);
  return header?.alg === 'RS256' && typeof header.kid === 'string' && header.kid !== '';
};

export const identityPlugin = fp<{ projectId: string; emulatorHost: string | null }>(
  async (app, options) => {
    if (options.emulatorHost) {
      // firebase-admin reads this variable itself; it must be set before the first call. In
      // production config.ts refuses to start when it is set at all.
      process.env.FIREBASE_AUTH_EMULATOR_HOST = options.emulatorHost;
    }
    // A named app of our own, so several servers in one process (tests) do not share state.
    const firebaseApp = initializeApp({ projectId: options.projectId }, `onramp-${randomUUID()}`);
    const auth = getAuth(firebaseApp);
    app.addHook('onClose', () => deleteApp(firebaseApp));

    app.decorate('identity', {
      async verify(idToken: string) {
        if (!options.emulatorHost) {
          // firebase-admin decides per call, from the process environment alone, whether to skip
          // the signature check (the emulator's tokens are unsigned). A server configured without
          // the emulator therefore refuses unsigned tokens itself, and fails closed if that
          // variable appeared after config.ts checked it (another app in this process set it).
          if (!looksSigned(idToken)) throw refusal(401, 'auth.signInNotVerified');
          if (process.env.FIREBASE_AUTH_EMULATOR_HOST) {
            app.log.error('FIREBASE_AUTH_EMULATOR_HOST is set in a server configured without the emulator: sign-in refused');
            throw refusal(503, 'auth.signInUnavailable');
          }
        }
        try {
          // `true` also rejects disabled users and revoked sessions.
          const token = await auth.verifyIdToken(idToken, true);
          return {
            uid: token.uid,
            email: typeof token.email === 'string' ? token.email.toLowerCase() : null,
            emailVerified: token.email_verified === true,
            provider: token.firebase.sign_in_provider,
            authTime: new Date(token.auth_time * 1000),
          };
        } catch (error) {
          const code = String((error as { code?: unknown }).code ?? '');
          if (isTokenProblem(code)) throw refusal(401, 'auth.signInNotVerified');
          app.log.error({ code }, 'Firebase Authentication could not be reached');
          throw refusal(503, 'auth.signInUnavailable');
        }
      },
      async tokensValidSince(uid: string) {
        try {
          const since = (await auth.getUser(uid)).tokensValidAfterTime;
          return since ? new Date(since) : null;
        } catch (error) {
          const code = String((error as { code?: unknown }).code ?? '');
          if (code === 'auth/user-not-found') return app.now();
          app.log.error({ code }, 'Firebase Authentication could not be reached');
          throw refusal(503, 'auth.signInUnavailable');
        }
      },
      async deleteUser(uid: string) {
        try {
          await auth.deleteUser(uid);
        } catch (error) {
          const code = String((error as { code?: unknown }).code ?? '');
          // Deleted before (an erasure tried again, or by hand in the Firebase console): done.
          if (code === 'auth/user-not-found') return;
          app.log.error({ code }, 'Firebase Authentication could not delete a user');
          throw refusal(503, 'auth.identityUnavailable');
        }
      },
      async ensureAccount(email: string, options: { password?: string; emailVerified?: boolean } = {}) {
        try {
          const { uid } = await auth.getUserByEmail(email);
          if (options.password) await auth.updateUser(uid, options);
          return { uid, created: false };
        } catch (error) {
          const code = String((error as { code?: unknown }).code ?? '');
          if (code === 'auth/invalid-email') throw refusal(400, 'auth.emailRefused');
          // Firebase's password policy (production may set one stricter than the contract's).
          if (code === 'auth/invalid-password') throw refusal(400, 'staff.passwordRefused');
          if (code !== 'auth/user-not-found') {
            app.log.error({ code }, 'Firebase Authentication could not be reached');
            throw refusal(503, 'auth.identityUnavailable');
          }
        }
        try {
          return { uid: (await auth.createUser({ email, ...options })).uid, created: true };
        } catch (error) {
          if ((error as { code?: unknown }).code === 'auth/invalid-email') throw refusal(400, 'auth.emailRefused');
          if ((error as { code?: unknown }).code === 'auth/invalid-password') throw refusal(400, 'staff.passwordRefused');
          app.log.error({ code: String((error as { code?: unknown }).code ?? '') }, 'Firebase Authentication could not create a user');
          throw refusal(503, 'auth.identityUnavailable');
        }
      },
    });
  },
  { name: 'onramp-identity', decorators: { fastify: ['httpErrors', 'now'] } },
);
