import { Inject, Injectable } from '@nestjs/common';
import { BoundedMap } from './bounded-map';
import { SANDBOX_OPTIONS, SandboxOptions } from './sandbox-options';

/** An HTTP answer the sandbox gave (status and JSON body). */
export interface Answer {
  status: number;
  body: unknown;
}

type Entry = { state: 'in_flight'; done: Promise<void> } | { state: 'settled'; answer: Answer };

export type KeyState = { kind: 'free' } | { kind: 'in_flight'; done: Promise<void> } | { kind: 'settled'; answer: Answer };

/** Held by the request that first used a key; finish() settles or frees the key. */
export interface KeyClaim {
  /** With an answer: later requests with the key get it. Without: the key is free again. */
  finish(answer?: Answer): void;
}

/**
 * Idempotency-Keys per school or partner, as real buyer systems commonly keep
 * them: a key whose request was processed (accepted, rejected, duplicate)
 * replays that answer; a key whose request failed (500, no answer) is not
 * remembered, so a retry is processed afresh.
 */
@Injectable()
export class IdempotencyStore {
  private readonly scopes: BoundedMap<string, BoundedMap<string, Entry>>;

  constructor(@Inject(SANDBOX_OPTIONS) private readonly options: SandboxOptions) {
    this.scopes = new BoundedMap(options.maxNames * 2);
  }

  lookup(scope: string, key: string): KeyState {
    const entry = this.scopes.get(scope)?.get(key);
    if (!entry) return { kind: 'free' };
    return entry.state === 'settled' ? { kind: 'settled', answer: entry.answer } : { kind: 'in_flight', done: entry.done };
  }

  /** Call only after lookup() said free, with no await in between. */
  claim(scope: string, key: string): KeyClaim {
    const keys = this.scopes.touch(scope, () => new BoundedMap<string, Entry>(this.options.maxIdempotencyKeysPerName));
    let release!: () => void;
    const done = new Promise<void>((resolve) => (release = resolve));
    const entry: Entry = { state: 'in_flight', done };
    keys.touch(key, () => entry);
    let finished = false;
    return {
      finish: (answer?: Answer) => {
        if (finished) return;
        finished = true;
        // Only touch the key if it is still ours (a clear may have dropped it meanwhile).
        if (keys.get(key) === entry) {
          if (answer) keys.set(key, { state: 'settled', answer });
          else keys.delete(key);
        }
        release();
      },
    };
  }

  forget(scope: string): void {
    this.scopes.delete(scope);
  }

  forgetAll(): void {
    this.scopes.clear();
  }
}
