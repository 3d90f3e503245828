import type { DataSource, EntityManager } from 'typeorm';
import { run, statement } from '../queries/sql';

/** lr_claim_message (migration 1764800000000): the record in today's partition, once per key across the day partitions. */
const MARK_PROCESSED = statement('markProcessed', `SELECT lr_claim_message($1, $2, $3) AS claimed`);

/**
 * Messages handled at most once (`processed_messages`): for an effect whose
 * own rows cannot carry the message's identity. Most handlers do not need it:
 * their writes are keyed by the id the message names (a search, a lead), and
 * a redelivery finds them.
 */
export class ProcessedMessages {
  constructor(private readonly ds: DataSource) {}

  /**
   * Runs `effect` at most once per (consumer, messageId): the effect and the
   * processed-message record commit in one transaction, so a redelivered
   * message finds the record and has no second effect. False when the message
   * had already been handled.
   */
  async runOnce(
    consumer: string,
    message: { messageId: string; type: string },
    effect: (em: EntityManager) => Promise<void>,
  ): Promise<boolean> {
    return this.ds.transaction(async (em) => {
      if (!(await claim(em, consumer, message))) return false;
      await effect(em);
      return true;
    });
  }

  /**
   * Claims (consumer, messageId) for an effect that must happen at most once
   * and cannot share a transaction with the record — a call to another system.
   * The record commits first, then the caller runs the effect. False when the
   * message was claimed before: the effect may already have happened.
   */
  claimOnce(consumer: string, message: { messageId: string; type: string }): Promise<boolean> {
    return claim(this.ds, consumer, message);
  }
}

async function claim(db: DataSource | EntityManager, consumer: string, message: { messageId: string; type: string }): Promise<boolean> {
  const rows = await run(db, MARK_PROCESSED, [consumer, message.messageId, message.type]);
  return rows[0]?.claimed === true;
}
