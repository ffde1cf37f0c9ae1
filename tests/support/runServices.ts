/**
 * Where the run's services are, as tests/globalSetup.ts started them: the Auth emulator's address
 * in FIREBASE_AUTH_EMULATOR_HOST, where the servers a test builds or starts, the tools and
 * firebase-admin look for it.
 */
import { inject } from 'vitest';

process.env.FIREBASE_AUTH_EMULATOR_HOST = inject('authEmulatorHost');
