import type { PartnerAnswer } from '@lr/contracts';

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The partner answers of one handling of one search request, on their way to
 * the orchestrator. An answer leaves as soon as its call ends. Answers that
 * end in the same event-loop turn, or while the request's previous message
 * still waits for the broker's confirm, leave together in the next message:
 * waiting for the end of the turn (setImmediate) costs no time, and waiting for
 * the confirm anyway keeps a burst of answers from becoming a burst of
 * messages. No timer holds an answer back.
 *
 * A failed publish is not tried again here (the broker may have taken it
 * before the confirm was lost): the others are still sent, and settled()
 * rejects so that the transport retries the whole request.
 */
export class AnswerBatches {
  private pending: PartnerAnswer[] = [];
  private sending: Promise<void> | undefined;
  private failure: { error: unknown } | undefined;

  constructor(private readonly publish: (answers: PartnerAnswer[]) => Promise<unknown>) {}

  add(answer: PartnerAnswer): void {
    this.pending.push(answer);
    this.sending ??= this.send();
  }

  /** Resolves once every answer added so far was published; rejects with the first failed publish. */
  async settled(): Promise<void> {
    await this.sending;
    if (this.failure) throw this.failure.error;
  }

  private async send(): Promise<void> {
    while (this.pending.length > 0) {
      await nextTurn();
      const answers = this.pending;
      this.pending = [];
      try {
        await this.publish(answers);
      } catch (error) {
        this.failure ??= { error };
      }
    }
    this.sending = undefined;
  }
}
