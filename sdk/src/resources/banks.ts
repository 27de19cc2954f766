import { APIResource, type CallOptions, init, PREFIX, unwrap } from '../core/resource.js';
import type { Bank } from '../types.js';

/** The banks a transfer can reach. */
export class Banks extends APIResource {
  /** Every bank (NIP institution code and name), sorted by name; one short list, not paginated. */
  list(options?: CallOptions): Promise<Bank[]> {
    return unwrap(this.api.GET(`${PREFIX}/services/banks`, init(options)));
  }
}
