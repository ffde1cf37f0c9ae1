import { createHash } from 'node:crypto';

/** How a staff secret (a session, a key, an invitation link's token) is kept: its SHA-256 alone. */
export const hashSecret = (secret: string) => createHash('sha256').update(secret).digest('hex');
