/**
 * E-mails waiting to be sent, written in the transaction of the change that asked for them. The bodies
 * are encrypted (they may hold a one-time code, or a reason an operator gave) and erased once sent or
 * given up.
 */
export interface MailOutboxTable {
  id: string;
  recipient: string;
  subject: string;
  body_encrypted: string | null;
  /** The HTML alternative of the body, encrypted and erased the same way; null for plain-text mail. */
  html_encrypted: string | null;
  status: 'pending' | 'sent' | 'failed';
  attempts: number;
  next_attempt_at: number;
  locked_until: number | null;
  lease_token: string | null;
  /** Past this the message is useless (its code expired): it is given up instead of sent late. */
  discard_after: number;
  last_error: string | null;
  sent_at: number | null;
  created_at: number;
}

export interface MailTables {
  mail_outbox: MailOutboxTable;
}
