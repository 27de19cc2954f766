import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { credentialOf, requestMeta } from '../../platform/http/auth.js';
import { operation } from '../../platform/http/route.js';
import { success } from '../../platform/http/schemas.js';
import { answerIdempotently } from '../../platform/idempotency/idempotency.js';
import {
  CreateTeamMemberBody,
  TeamListQuery,
  TeamListResponse,
  TeamMemberParams,
  TeamMemberResponse,
  UpdateTeamMemberBody,
} from './team.schemas.js';
import type { TeamService } from './team.service.js';

const tags = ['Team'];
const PATH = '/services/partner/settings/team';

export const teamRoutes: FastifyPluginAsyncTypebox<{ team: TeamService }> = async (app, { team }) => {
  app.post(
    PATH,
    operation({
      operationId: 'createTeamMember',
      summary: 'Add a team member',
      description:
        'Needs a compliance representative on file (409 REPRESENTATIVE_REQUIRED). E-mail unique within the team (422). ' +
        'The BVN is encrypted at rest and returned masked.',
      tags,
      auth: 'partner',
      access: 'officers',
      body: CreateTeamMemberBody,
      idempotent: true,
      response: { 201: TeamMemberResponse },
      errors: ['REPRESENTATIVE_REQUIRED'],
    }),
    async (request, reply) =>
      answerIdempotently(
        request,
        reply,
        201,
        () => team.create(credentialOf(request), request.body, requestMeta(request)),
        (data) => success('Team member added.', data),
      ),
  );

  app.get(
    PATH,
    operation({
      operationId: 'listTeamMembers',
      summary: 'List team members',
      description: 'Team members are partner-wide (both environments), newest first; BVNs masked.',
      tags,
      auth: 'partner',
      access: 'read',
      querystring: TeamListQuery,
      response: { 200: TeamListResponse },
    }),
    async (request) =>
      success(
        'Team members.',
        await team.list(credentialOf(request).partnerId, {
          limit: request.query.limit,
          ...(request.query.cursor !== undefined ? { cursor: request.query.cursor } : {}),
        }),
      ),
  );

  app.get(
    `${PATH}/:memberId`,
    operation({
      operationId: 'getTeamMember',
      summary: 'Read a team member',
      description: "Another partner's member, or an unknown id, is 404 NOT_FOUND. The BVN is masked.",
      tags,
      auth: 'partner',
      access: 'read',
      params: TeamMemberParams,
      response: { 200: TeamMemberResponse },
    }),
    async (request) =>
      success('Team member.', await team.get(credentialOf(request).partnerId, request.params.memberId)),
  );

  app.put(
    `${PATH}/:memberId`,
    operation({
      operationId: 'updateTeamMember',
      summary: 'Update a team member',
      description:
        'Every field as on creation except bvn, which is optional and cannot change (409 BVN_IMMUTABLE).',
      tags,
      auth: 'partner',
      access: 'officers',
      params: TeamMemberParams,
      body: UpdateTeamMemberBody,
      response: { 200: TeamMemberResponse },
      errors: ['BVN_IMMUTABLE'],
    }),
    async (request) =>
      success(
        'Team member updated.',
        await team.update(credentialOf(request), request.params.memberId, request.body, requestMeta(request)),
      ),
  );

  app.delete(
    `${PATH}/:memberId`,
    operation({
      operationId: 'deleteTeamMember',
      summary: 'Remove a team member',
      description:
        "Removes the member for good and answers the removed record. Another partner's member, or an unknown id, is 404.",
      tags,
      auth: 'partner',
      access: 'officers',
      params: TeamMemberParams,
      response: { 200: TeamMemberResponse },
    }),
    async (request) =>
      success(
        'Team member removed.',
        await team.remove(credentialOf(request), request.params.memberId, requestMeta(request)),
      ),
  );
};
