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
  Object.fromEntries(PARTNER_KIND_NAMES.map((kind) => [kind, Type.Optional(Type.Boolean())])),
  {
    additionalProperties: false,
    minProperties: 1,
    description: 'The kinds to change: true turns one on, false off; kinds not sent stay as they are.',
    examples: [{ transfer_failed: false }],
  },
);
export type PreferencesBody = Static<typeof PreferencesBody>;
