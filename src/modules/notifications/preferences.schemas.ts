import { type Static, Type } from '@sinclair/typebox';
import { StringEnum, Success } from '../../platform/http/schemas.js';
import { PARTNER_KIND_NAMES, PARTNER_KINDS } from './notifications.templates.js';

const Kind = StringEnum(PARTNER_KIND_NAMES, {
  description: Object.entries(PARTNER_KINDS)
    .map(([kind, when]) => `${kind}: ${when.toLowerCase()}`)
    .join('; '),
});

const PreferenceView = Type.Object(
  {
    kind: Kind,
    description: Type.String({ description: 'When this e-mail is sent, in the dashboard’s words.' }),
    enabled: Type.Boolean({ description: 'You receive it (as an owner or admin).' }),
    required: Type.Boolean({
      description: 'It cannot be turned off: it changes what the business may do with live money.',
    }),
  },
  { title: 'NotificationPreference' },
);

export const PreferencesResponse = Success(Type.Array(PreferenceView), 'Your e-mail notifications.');

export const PreferencesBody = Type.Object(
  {
    kind: Kind,
    enabled: Type.Boolean({ description: 'true: you receive this e-mail; false: you do not.' }),
  },
  { examples: [{ kind: 'transfer_failed', enabled: false }] },
);
export type PreferencesBody = Static<typeof PreferencesBody>;
