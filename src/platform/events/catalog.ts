import type { TSchema } from '@sinclair/typebox';
import { compileSerializer } from '../http/validation.js';

/** An event type a module declares: the schema of its `data` and what it means, for the docs. */
export interface EventDefinition {
  payload: TSchema;
  description: string;
}

/**
 * Event types by name. Each module declares its own (`<module>.events.ts`); the composition root
 * joins them into the one catalog the outbox serializes with and the webhooks module documents.
 */
export type EventCatalog = Readonly<Record<string, EventDefinition>>;

export const defineEvents = <const T extends EventCatalog>(events: T): T => events;

/** Turns an event's data into the JSON delivered (and kept) for it, by the event type's schema. */
export type EventSerializer = (type: string, data: unknown) => string;

/** The catalog's schemas compiled once; an event type outside the catalog is a programming error. */
export function createEventSerializer(catalog: EventCatalog): EventSerializer {
  const serializers = new Map(
    Object.entries(catalog).map(([type, definition]) => [type, compileSerializer(definition.payload)]),
  );
  return (type, data) => {
    const serialize = serializers.get(type);
    if (!serialize) throw new Error(`no payload schema for ${type}`);
    return serialize(data);
  };
}
