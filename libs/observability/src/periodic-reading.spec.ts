import { PeriodicReading } from './periodic-reading';

describe('PeriodicReading', () => {
  it('shares a reading under way, reports a run of failures once, and again after a value came back', async () => {
    const failures: unknown[] = [];
    const script: Array<() => Promise<number | undefined>> = [];
    let reads = 0;
    const reading = new PeriodicReading<number>(
      60_000,
      () => (reads++, script.shift()!()),
      (e) => failures.push(e),
    );

    let release!: (n: number) => void;
    script.push(() => new Promise((r) => (release = r)));
    const a = reading.refresh();
    const b = reading.refresh();
    release(7);
    expect([await a, await b, reads]).toEqual([7, 7, 1]);

    script.push(
      () => Promise.reject(new Error('down')),
      () => Promise.reject(new Error('still down')),
      async () => undefined,
      () => Promise.reject(new Error('down again')),
    );
    expect(await reading.refresh()).toBeUndefined();
    expect(await reading.refresh()).toBeUndefined();
    // "Cannot ask now" is no value: the failure run goes on, unreported.
    expect(await reading.refresh()).toBeUndefined();
    expect(await reading.refresh()).toBeUndefined();
    expect(failures.map((e) => (e as Error).message)).toEqual(['down']);

    script.push(
      async () => 3,
      () => Promise.reject(new Error('new outage')),
    );
    expect(await reading.refresh()).toBe(3);
    await reading.refresh();
    expect(failures.map((e) => (e as Error).message)).toEqual(['down', 'new outage']);
  });

  it('start reads at once; stop waits for the reading under way and stops the timer', async () => {
    let release!: () => void;
    let reads = 0;
    const reading = new PeriodicReading<number>(
      10,
      () => new Promise((r) => ((reads += 1), (release = () => r(1)))),
      () => undefined,
    );
    reading.start();
    reading.start();
    expect(reads).toBe(1);
    const stopped = reading.stop();
    release();
    await stopped;
    await new Promise((r) => setTimeout(r, 40));
    expect(reads).toBe(1);
  });
});
