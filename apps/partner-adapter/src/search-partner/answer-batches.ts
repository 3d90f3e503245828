import type { PartnerAnswer } from '@lr/contracts';

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The partner answers of one handling of one search request, on their way to
 * the orchestrator. Answers that end in the same event-loop turn, or while
 * the request's previous message still waits for the broker's confirm, leave
 * together in the next message. And while other partners of the request are
 * still being called, a message waits up to `gatherMs` for them: each message
 * costs the broker, the orchestrator and PostgreSQL a merge of its own, and
 * partners that answer within a few milliseconds of each other (networks
 * with similar latency, several timing out at the same deadline) are merged
 * once. The wait is bounded and small beside a partner call (hundreds of ms)
 * and the polling interval (about a second), and it ends as soon as every
 * partner has answered.
 *
 * A failed publish is not tried again here (the broker may have taken it
 * before the confirm was lost): the others are still sent, and settled()
 * rejects so that the transport retries the whole request.
 */
export class AnswerBatches {
  private pending: PartnerAnswer[] = [];
  private arrived = 0;
  private sending: Promise<void> | undefined;
  private failure: { error: unknown } | undefined;
  private wake: (() => void) | undefined;

  /** `expected`: the answers this request will have (one per partner called); `gatherMs`: how long a message waits for the others. */
  constructor(
    private readonly publish: (answers: PartnerAnswer[]) => Promise<unknown>,
    private readonly expected = Infinity,
    private readonly gatherMs = 0,
  ) {}

  add(answer: PartnerAnswer): void {
    this.pending.push(answer);
    this.arrived++;
    if (this.arrived >= this.expected) this.wake?.();
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
      if (this.arrived < this.expected && this.gatherMs > 0) await this.gather();
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

  /** Until every expected answer arrived, or gatherMs passed. */
  private gather(): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, this.gatherMs);
      this.wake = done;
    });
  }
}
