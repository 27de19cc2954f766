import { PageIterator } from '../core/pagination.js';
import {
  APIResource,
  type CallOptions,
  type IdempotentCallOptions,
  init,
  PREFIX,
  post,
  unwrap,
} from '../core/resource.js';
import type {
  CreateTeamMemberInput,
  TeamListOptions,
  TeamMember,
  TeamMemberPage,
  UpdateTeamMemberInput,
} from '../types.js';

/** Team members (partner-wide). */
export class Team extends APIResource {
  create(body: CreateTeamMemberInput, options?: IdempotentCallOptions): Promise<TeamMember> {
    return unwrap(this.api.POST(`${PREFIX}/services/partner/settings/team`, { body, ...post(options) }));
  }

  list(filters: TeamListOptions = {}, options?: CallOptions): PageIterator<TeamMember> {
    return new PageIterator((cursor) => this.listPage({ ...filters, cursor }, options));
  }

  listPage(
    query: TeamListOptions & { cursor?: string | undefined } = {},
    options?: CallOptions,
  ): Promise<TeamMemberPage> {
    return unwrap(
      this.api.GET(`${PREFIX}/services/partner/settings/team`, { params: { query }, ...init(options) }),
    );
  }

  get(memberId: string, options?: CallOptions): Promise<TeamMember> {
    return unwrap(
      this.api.GET(`${PREFIX}/services/partner/settings/team/{memberId}`, {
        params: { path: { memberId } },
        ...init(options),
      }),
    );
  }

  update(memberId: string, body: UpdateTeamMemberInput, options?: CallOptions): Promise<TeamMember> {
    return unwrap(
      this.api.PUT(`${PREFIX}/services/partner/settings/team/{memberId}`, {
        params: { path: { memberId } },
        body,
        ...init(options),
      }),
    );
  }

  delete(memberId: string, options?: CallOptions): Promise<TeamMember> {
    return unwrap(
      this.api.DELETE(`${PREFIX}/services/partner/settings/team/{memberId}`, {
        params: { path: { memberId } },
        ...init(options),
      }),
    );
  }
}
