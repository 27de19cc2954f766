/**
 * The e-mails partners and operators receive (docs/partner-guide.md and docs/operator-guide.md,
 * "E-mail notifications"): each kind a subject, a plain-text body and an HTML body. The HTML is
 * self-contained: no images, no remote content, no tracking; every value put into it is escaped.
 * A template takes only what its reader may see: an operator's internal note never reaches one.
 */

export const NOTIFICATION_KINDS = [
  'changes_requested',
  'application_approved',
  'application_rejected',
  'document_rejected',
  'partner_suspended',
  'partner_reinstated',
  'webhook_endpoint_failing',
  'transfer_failed',
  'partner_submitted',
  'proposal_pending',
] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

/** The kinds a partner's owners and admins receive, and what each tells them (the dashboard's words). */
export const PARTNER_KINDS = {
  changes_requested: 'The operator asks for changes to your application',
  application_approved: 'Your application is approved',
  application_rejected: 'Your application is rejected',
  document_rejected: 'A document is rejected',
  partner_suspended: 'Your business is suspended',
  partner_reinstated: 'The suspension is lifted',
  webhook_endpoint_failing: 'A webhook endpoint has failed for an hour',
  transfer_failed: 'A live transfer fails',
} as const satisfies Partial<Record<NotificationKind, string>>;
export type PartnerKind = keyof typeof PARTNER_KINDS;
export const PARTNER_KIND_NAMES = Object.keys(PARTNER_KINDS) as PartnerKind[];

/**
 * Kinds a partner's user can never turn off: they change what the business may do with live money.
 * Each user may turn off the others for themselves (docs/decisions.md, "Notifications").
 */
export const SECURITY_RELEVANT: ReadonlySet<PartnerKind> = new Set([
  'partner_suspended',
  'partner_reinstated',
]);

export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export const escapeHtml = (value: string): string => value.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);

/** A header line: no line breaks or other control characters (a value cannot add a header), at most 200 characters. */
const headerText = (value: string): string =>
  value
    .replace(/\p{Cc}+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 200);

/** Integer kobo as NGN with thousands separators: 150050 → "NGN 1,500.50". */
export function formatKobo(kobo: number): string {
  const sign = kobo < 0 ? '-' : '';
  const absolute = Math.abs(kobo);
  const naira = Math.floor(absolute / 100)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `NGN ${sign}${naira}.${String(absolute % 100).padStart(2, '0')}`;
}

/** A block of a message: a paragraph, a quoted text someone wrote (kept as typed), or labelled facts. */
type Block =
  | { paragraph: string }
  | { quote: string; label: string }
  | { facts: ReadonlyArray<readonly [string, string]> };

interface Message {
  subject: string;
  greeting: string;
  blocks: Block[];
  action: { label: string; url: string };
  footer: string;
}

function textOf(message: Message): string {
  const lines = [message.greeting, ''];
  for (const block of message.blocks) {
    if ('paragraph' in block) lines.push(block.paragraph, '');
    else if ('quote' in block) {
      lines.push(`${block.label}:`, ...block.quote.split(/\r?\n/).map((line) => `  ${line}`), '');
    } else {
      for (const [label, value] of block.facts) lines.push(`${label}: ${value}`);
      lines.push('');
    }
  }
  lines.push(`${message.action.label}: ${message.action.url}`, '', '--', message.footer, '');
  return lines.join('\n');
}

function htmlOf(message: Message): string {
  const parts = [`<p>${escapeHtml(message.greeting)}</p>`];
  for (const block of message.blocks) {
    if ('paragraph' in block) parts.push(`<p>${escapeHtml(block.paragraph)}</p>`);
    else if ('quote' in block) {
      parts.push(
        `<p><strong>${escapeHtml(block.label)}:</strong></p>`,
        `<blockquote style="margin:0 0 1em;padding:0 0 0 1em;border-left:3px solid #999;white-space:pre-wrap">${escapeHtml(block.quote)}</blockquote>`,
      );
    } else {
      const rows = block.facts
        .map(
          ([label, value]) =>
            `<tr><th scope="row" align="left" style="padding:2px 12px 2px 0">${escapeHtml(label)}</th><td>${escapeHtml(value)}</td></tr>`,
        )
        .join('');
      parts.push(
        `<table role="presentation" style="border-collapse:collapse;margin:0 0 1em">${rows}</table>`,
      );
    }
  }
  parts.push(
    `<p><a href="${escapeHtml(message.action.url)}">${escapeHtml(message.action.label)}</a></p>`,
    `<hr><p style="color:#555;font-size:0.9em">${escapeHtml(message.footer)}</p>`,
  );
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    `<title>${escapeHtml(message.subject)}</title></head>`,
    `<body style="font-family:sans-serif;line-height:1.5;color:#111">${parts.join('\n')}</body></html>`,
    '',
  ].join('\n');
}

const render = (message: Message): RenderedMail => ({
  subject: headerText(message.subject),
  text: textOf(message),
  html: htmlOf(message),
});

const PARTNER_FOOTER =
  'You receive this e-mail because you are the login of this business on the BaaS partner dashboard.';
const ADMIN_FOOTER = 'You receive this e-mail because you are an active admin of the BaaS console.';
const OPERATOR_FOOTER = 'You receive this e-mail because you are an active operator of the BaaS console.';

/** What every partner e-mail knows: the business and where its dashboard is. */
export interface PartnerContext {
  businessName: string;
  /** The dashboard's address, from PUBLIC_URL: `${dashboardUrl}/onboarding` and so on. */
  dashboardUrl: string;
}

const partnerMessage = (
  partner: PartnerContext,
  subject: string,
  blocks: Block[],
  action: { label: string; path: string },
): RenderedMail =>
  render({
    subject: `${partner.businessName}: ${subject}`,
    greeting: `Hello ${partner.businessName},`,
    blocks,
    action: { label: action.label, url: `${partner.dashboardUrl}/${action.path}` },
    footer: PARTNER_FOOTER,
  });

/** The documents' names as the dashboard shows them; an unknown type shows as it is. */
const DOCUMENT_LABELS: Record<string, string> = {
  cac_certificate: 'CAC certificate',
  memart: 'Memorandum and articles (MEMART)',
  cac_status_report: 'CAC status report',
  board_resolution: 'Board resolution',
  valid_id: "Representative's ID",
  proof_of_address: 'Proof of address',
  constitution: 'Constitution',
  scuml_certificate: 'SCUML certificate',
};

export const templates = {
  changes_requested: (partner: PartnerContext, reason: string) =>
    partnerMessage(
      partner,
      'changes requested on your application',
      [
        {
          paragraph:
            'Our compliance team reviewed your application and needs changes before it can be approved.',
        },
        { label: 'What to change', quote: reason },
        { paragraph: 'Make the changes in the dashboard and submit the application again.' },
      ],
      { label: 'Open your application', path: 'onboarding' },
    ),

  application_approved: (partner: PartnerContext) =>
    partnerMessage(
      partner,
      'your application is approved',
      [
        {
          paragraph:
            'Your application is approved: you can now switch to live, create live API keys and issue live accounts.',
        },
      ],
      { label: 'Open the dashboard', path: 'overview' },
    ),

  application_rejected: (partner: PartnerContext, reason: string) =>
    partnerMessage(
      partner,
      'your application was not approved',
      [
        {
          paragraph:
            'Our compliance team reviewed your application and could not approve it. This decision is final; the sandbox stays available.',
        },
        { label: 'Reason', quote: reason },
      ],
      { label: 'Open your application', path: 'onboarding' },
    ),

  document_rejected: (partner: PartnerContext, document: { type: string; reason: string | null }) =>
    partnerMessage(
      partner,
      `a document needs replacing (${DOCUMENT_LABELS[document.type] ?? document.type})`,
      [
        { facts: [['Document', DOCUMENT_LABELS[document.type] ?? document.type]] },
        { paragraph: 'Our compliance team rejected this document. Upload a new one in the dashboard.' },
        ...(document.reason ? [{ label: 'Reason', quote: document.reason }] : []),
      ],
      { label: 'Open your documents', path: 'onboarding' },
    ),

  partner_suspended: (partner: PartnerContext, reason: string) =>
    partnerMessage(
      partner,
      'your live access is suspended',
      [
        {
          paragraph:
            'Your business is suspended: live API keys and live sessions are refused until the suspension is lifted. The sandbox keeps working.',
        },
        { label: 'Reason', quote: reason },
        { paragraph: 'If you did not expect this, contact us.' },
      ],
      { label: 'Open the dashboard', path: 'overview' },
    ),

  partner_reinstated: (partner: PartnerContext) =>
    partnerMessage(
      partner,
      'your live access is restored',
      [
        {
          paragraph: 'The suspension of your business is lifted: live API keys and live sessions work again.',
        },
      ],
      { label: 'Open the dashboard', path: 'overview' },
    ),

  webhook_endpoint_failing: (
    partner: PartnerContext,
    endpoint: { environment: string; url: string; failingSince: string; lastError: string | null },
  ) =>
    partnerMessage(
      partner,
      `your ${endpoint.environment} webhook endpoint has been failing for an hour`,
      [
        {
          paragraph:
            'Deliveries to your webhook endpoint have failed for an hour, with no success since. We keep retrying each event for 24 hours; events not delivered by then stay in the event log.',
        },
        {
          facts: [
            ['Environment', endpoint.environment],
            ['Endpoint', endpoint.url],
            ['Failing since', endpoint.failingSince],
            ...(endpoint.lastError ? ([['Last error', endpoint.lastError]] as const) : []),
          ],
        },
        {
          paragraph:
            'The delivery log in the dashboard shows every attempt and its answer. This is the only e-mail until a delivery succeeds again.',
        },
      ],
      { label: 'Open the delivery log', path: 'developers/webhooks' },
    ),

  transfer_failed: (
    partner: PartnerContext,
    transfer: {
      id: string;
      reference: string;
      amountKobo: number;
      beneficiary: string;
      reason: string;
    },
  ) =>
    partnerMessage(
      partner,
      `a live transfer failed (${transfer.reference})`,
      [
        {
          paragraph:
            'A live transfer failed: nothing was debited and the held amount and fee are available again.',
        },
        {
          facts: [
            ['Reference', transfer.reference],
            ['Amount', formatKobo(transfer.amountKobo)],
            ['Beneficiary', transfer.beneficiary],
            ['Reason', transfer.reason],
          ],
        },
      ],
      { label: 'Open the transfer', path: `transfers/${encodeURIComponent(transfer.id)}` },
    ),

  partner_submitted: (
    consoleUrl: string,
    partner: { id: number; businessName: string; firstSubmission: boolean },
  ) =>
    render({
      subject: `Application submitted for review: ${partner.businessName}`,
      greeting: 'Hello,',
      blocks: [
        {
          paragraph: partner.firstSubmission
            ? 'A partner submitted its application for review.'
            : 'A partner submitted its application again after changes were requested.',
        },
        {
          facts: [
            ['Business', partner.businessName],
            ['Company id', String(partner.id)],
          ],
        },
      ],
      action: { label: 'Review it in the console', url: `${consoleUrl}/partners/${partner.id}` },
      footer: OPERATOR_FOOTER,
    }),

  proposal_pending: (
    consoleUrl: string,
    proposal: {
      action: 'approve' | 'suspend' | 'reinstate';
      companyId: number;
      businessName: string;
      proposedBy: string;
      reason: string | null;
    },
  ) =>
    render({
      subject: `Awaiting your confirmation: ${proposal.action} ${proposal.businessName}`,
      greeting: 'Hello,',
      blocks: [
        {
          paragraph: `${proposal.proposedBy} proposed to ${proposal.action} a partner. Nothing changes until another admin confirms it; you can confirm or decline it in the console.`,
        },
        {
          facts: [
            ['Business', proposal.businessName],
            ['Company id', String(proposal.companyId)],
            ['Proposed by', proposal.proposedBy],
          ],
        },
        ...(proposal.reason ? [{ label: 'Reason the partner will see', quote: proposal.reason }] : []),
      ],
      action: { label: 'Open the proposal', url: `${consoleUrl}/partners/${proposal.companyId}` },
      footer: ADMIN_FOOTER,
    }),
} satisfies Record<NotificationKind, (...args: never[]) => RenderedMail>;

/**
 * An invitation to a business's dashboard (not a notification kind: it is sent to whoever is
 * invited, once per invitation or resend). The link holds the one-time token in its fragment, which
 * browsers never send to a server.
 */
export const invitationMail = (invitation: {
  businessName: string;
  inviterName: string;
  role: string;
  url: string;
  expiresAt: string;
}): RenderedMail =>
  render({
    subject: `${invitation.businessName}: you are invited to the BaaS dashboard`,
    greeting: 'Hello,',
    blocks: [
      {
        paragraph: `${invitation.inviterName} invited you to the dashboard of ${invitation.businessName} as ${invitation.role}.`,
      },
      {
        facts: [
          ['Business', invitation.businessName],
          ['Role', invitation.role],
          ['Link valid until', invitation.expiresAt],
        ],
      },
      {
        paragraph:
          'Open the link to choose your name and password. It works once and for 72 hours; if you did not expect this invitation, ignore this e-mail.',
      },
    ],
    action: { label: 'Accept the invitation', url: invitation.url },
    footer: 'You receive this e-mail because a user of this business invited your address.',
  });
