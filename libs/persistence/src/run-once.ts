import { DataSource, EntityManager } from 'typeorm';

/**
 * Runs `effect` at most once per (consumer, messageId): the effect and the
 * processed-message record commit in one transaction, so a redelivered message
 * (a consumer killed before its ack, a replay from the DLQ) finds the record and
 * has no second effect. Returns false when the message had already been handled.
 */
export async function runOnce(
  ds: DataSource,
  consumer: string,
  message: { messageId: string; type: string },
  effect: (em: EntityManager) => Promise<void>,
): Promise<boolean> {
  return ds.transaction(async (em) => {
    const inserted: unknown[] = await em.query(
      `INSERT INTO processed_messages (consumer, message_id, message_type) VALUES ($1, $2, $3)
       ON CONFLICT DO NOTHING RETURNING message_id`,
      [consumer, message.messageId, message.type],
    );
    if (inserted.length === 0) return false;
    await effect(em);
    return true;
  });
}

/**
 * Claims (consumer, messageId) for an effect that must happen at most once and
 * cannot share a transaction with the record — a call to another system. The
 * record commits first, then the caller runs the effect. Returns false when the
 * message was claimed before (a redelivery after a crash or a lost channel, a
 * replay, a twin still running): the effect may already have happened and must
 * not run again.
 */
export async function claimOnce(ds: DataSource, consumer: string, message: { messageId: string; type: string }): Promise<boolean> {
  const inserted: unknown[] = await ds.query(
    `INSERT INTO processed_messages (consumer, message_id, message_type) VALUES ($1, $2, $3)
     ON CONFLICT DO NOTHING RETURNING message_id`,
    [consumer, message.messageId, message.type],
  );
  return inserted.length > 0;
}
