/**
 * What drivers are told outside the app: the one-time codes and the notices (approved, rejected,
 * subscription failed or ended, bank account changed, reminders, a link back to their step sent by
 * staff, documents expiring or expired),
 * and what staff members are told (an invitation to the admin page, repeated failed sign-ins, a webhook endpoint disabled). Their words are data in flows/notices.json,
 * which ops staff edit; this says which `{placeholders}` the server fills into each, so the lint can
 * check an edit and the server's calls are typed by it.
 */
export const NOTICE_VALUES = {
  emailCode: ['code', 'minutes'],
  phoneCode: ['code', 'minutes'],
  approved: ['signInUrl'],
  rejected: ['reason', 'signInUrl'],
  subscriptionFailed: ['signInUrl'],
  subscriptionEnded: ['signInUrl'],
  bankAccountChanged: ['accountLast4'],
  reminder: ['step', 'signInUrl', 'unsubscribeUrl'],
  resumeLink: ['resumeUrl', 'minutes', 'signInUrl'],
  documentExpiring: ['document', 'expiresOn', 'signInUrl'],
  documentExpired: ['document', 'expiresOn', 'signInUrl'],
  webhookDisabled: ['url', 'description', 'failingSince', 'lastStatus', 'adminUrl'],
  webhookSecretUnreadable: ['url', 'description', 'adminUrl'],
  staffInvitation: ['invitedBy', 'roles', 'invitationUrl', 'expiresAt', 'adminUrl'],
  staffSignInFailures: ['email', 'failures', 'adminUrl'],
} as const satisfies Record<string, readonly string[]>;

/**
 * The placeholders without which a message says nothing of use (a code message without its code),
 * by channel: a text message may be short and send the driver to the email or the app.
 */
export const REQUIRED_VALUES: { readonly [N in NoticeName]?: { readonly [C in keyof NoticeWords]?: readonly (typeof NOTICE_VALUES)[N][number][] } } = {
  emailCode: { email: ['code'] },
  phoneCode: { sms: ['code'] },
  rejected: { email: ['reason'] },
  bankAccountChanged: { email: ['accountLast4'] },
  reminder: { email: ['signInUrl', 'unsubscribeUrl'] },
  resumeLink: { email: ['resumeUrl'], sms: ['resumeUrl'] },
  documentExpiring: { email: ['document', 'expiresOn', 'signInUrl'], sms: ['document'] },
  documentExpired: { email: ['document', 'signInUrl'], sms: ['document'] },
  webhookDisabled: { email: ['url', 'adminUrl'] },
  webhookSecretUnreadable: { email: ['url', 'adminUrl'] },
  staffInvitation: { email: ['invitationUrl'] },
  staffSignInFailures: { email: ['email'] },
};

/** The one placeholder of flows/notices.json's expiries.fixReason and renewReason: the document's date. */
export const FIX_REASON_VALUE = 'expiresOn';

export type NoticeName = keyof typeof NOTICE_VALUES;

/** Each notice as staff read of it on a driver's timeline ("Approval sent by email"). */
export const NOTICE_TITLES: Record<NoticeName, string> = {
  emailCode: 'Email code',
  phoneCode: 'Phone code',
  approved: 'Approval',
  rejected: 'Request for changes',
  subscriptionFailed: 'Failed subscription payment',
  subscriptionEnded: 'Subscription ended',
  bankAccountChanged: 'Bank account changed',
  reminder: 'Reminder',
  resumeLink: 'Link back to their step',
  documentExpiring: 'Document expiring',
  documentExpired: 'Document expired',
  webhookDisabled: 'Webhook endpoint turned off',
  webhookSecretUnreadable: 'Webhook endpoint turned off: secret unreadable',
  staffInvitation: 'Invitation to the admin page',
  staffSignInFailures: 'Repeated failed sign-ins',
};
export const NOTICE_NAMES = Object.keys(NOTICE_VALUES) as NoticeName[];

/** The notices to staff members, by email in English (their words are no copy to translate); every other one is to a driver. */
export const STAFF_NOTICES = ['webhookDisabled', 'webhookSecretUnreadable', 'staffInvitation', 'staffSignInFailures'] as const satisfies readonly NoticeName[];
export type NoticeToStaff = (typeof STAFF_NOTICES)[number];

/** The values a notice is sent with, one per placeholder it offers. */
export type NoticeValues<N extends NoticeName> = Record<(typeof NOTICE_VALUES)[N][number], string>;

/** A notice's words: an email (subject and text; the HTML part is made from the text), a text message, or both. */
export interface NoticeWords {
  email?: { subject: string; text: string };
  sms?: { text: string };
}
