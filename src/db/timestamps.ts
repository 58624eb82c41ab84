import { p } from '@mikro-orm/core';

/**
 * The timestamp columns entities share, defined once: `created_at` is set when the ORM creates the row,
 * `updated_at` then and on every ORM update. (Statements that write rows directly set them in SQL.)
 */
export const createdAt = () => p.datetime().onCreate(() => new Date());
export const updatedAt = () =>
  p
    .datetime()
    .onCreate(() => new Date())
    .onUpdate(() => new Date());
