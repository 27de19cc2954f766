import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requestMeta, sessionOf } from '../../platform/http/auth.js';
import { operation } from '../../platform/http/route.js';
import { success } from '../../platform/http/schemas.js';
import { PreferencesBody, PreferencesResponse } from './preferences.schemas.js';
import type { NotificationPreferences } from './preferences.service.js';

const tags = ['Dashboard users'];
const PATH = '/services/partner/settings/users/me/notifications';

/** A dashboard user's own e-mail notifications (docs/partner-guide.md, "E-mail notifications"). */
export const notificationRoutes: FastifyPluginAsyncTypebox<{ preferences: NotificationPreferences }> = async (
  app,
  { preferences },
) => {
  app.get(
    PATH,
    operation({
      operationId: 'getNotificationPreferences',
      summary: 'Your e-mail notifications',
      description:
        "Every kind of e-mail the business's owners and admins receive, and whether you receive it. Each user " +
        'chooses for themselves; a new user receives every kind. Dashboard sessions only.',
      tags,
      auth: 'session',
      access: 'read',
      response: { 200: PreferencesResponse },
    }),
    async (request) => success('Your e-mail notifications.', await preferences.list(sessionOf(request))),
  );

  app.put(
    PATH,
    operation({
      operationId: 'updateNotificationPreferences',
      summary: 'Turn your e-mail notifications on or off',
      description:
        'One kind at a time: `{kind, enabled}` (true on, false off); the others stay as they are. Suspension ' +
        'and reinstatement (`required`) cannot be turned off: enabled false for one of them is 422 ' +
        'VALIDATION_FAILED naming `kind`, and nothing changes. Answers the whole list. Audited as ' +
        'user.notifications_changed.',
      tags,
      auth: 'session',
      access: 'read',
      body: PreferencesBody,
      response: { 200: PreferencesResponse },
    }),
    async (request) =>
      success(
        'Your e-mail notifications are saved.',
        await preferences.update(sessionOf(request), request.body, requestMeta(request)),
      ),
  );
};
