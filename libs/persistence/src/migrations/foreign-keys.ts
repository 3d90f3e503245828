import { QueryRunner } from 'typeorm';

/** A foreign key a migration drops, with what `down` needs to add it back. */
export interface DroppedForeignKey {
  table: string;
  name: string;
  column: string;
  references: string;
}

export async function dropForeignKeys(q: QueryRunner, keys: readonly DroppedForeignKey[]): Promise<void> {
  for (const k of keys) await q.query(`ALTER TABLE ${k.table} DROP CONSTRAINT ${k.name}`);
}

export async function restoreForeignKeys(q: QueryRunner, keys: readonly DroppedForeignKey[]): Promise<void> {
  for (const k of keys)
    await q.query(`ALTER TABLE ${k.table} ADD CONSTRAINT ${k.name} FOREIGN KEY (${k.column}) REFERENCES ${k.references}(id)`);
}
