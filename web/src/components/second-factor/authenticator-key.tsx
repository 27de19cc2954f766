import { CopyButton } from '@/components/ui/copy-button';
import { QrCode } from './qr-code';
import './second-factor.css';

/** The secret in groups of four, as authenticator apps show keys. */
export const groupedSecret = (secret: string) => secret.replace(/(.{4})(?=.)/g, '$1 ');

/**
 * A new authenticator secret as a person adds it to an app: the otpauth:// URL as a QR code (and a
 * link, for an app on the same device), and the key in groups of four for typing by hand.
 */
export function AuthenticatorKey({
  secret,
  otpauthUrl,
  email,
}: {
  secret: string;
  otpauthUrl: string;
  email: string;
}) {
  return (
    <div className="authenticator-key">
      <QrCode value={otpauthUrl} label={`QR code to add ${email} to an authenticator app`} />
      <div className="authenticator-key__text">
        <p className="authenticator-key__label">Key for manual entry</p>
        <p className="authenticator-key__value">
          <code>{groupedSecret(secret)}</code>
        </p>
        <p className="muted authenticator-key__hint">Time-based, 6 digits, every 30 seconds.</p>
        <p>
          <CopyButton text={secret} label="Copy key" />
        </p>
        <p className="authenticator-key__hint">
          {/* Opens the authenticator app on this device, where one is installed. */}
          <a href={otpauthUrl}>Open in an authenticator app on this device</a>
        </p>
      </div>
    </div>
  );
}
