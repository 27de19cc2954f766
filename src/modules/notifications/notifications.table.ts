/**
 * A dashboard user's turned-off notification kinds: one row per user and kind they do not want
 * (docs/partner-guide.md, "E-mail notifications"). No row, the e-mail is sent.
 */
export interface NotificationMutesTable {
  user_id: string;
  kind: string;
  created_at: number;
}
