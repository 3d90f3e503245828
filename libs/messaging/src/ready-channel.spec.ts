import { EventEmitter } from 'node:events';
import { BrokerUnavailableError } from './errors';
import { ReadyChannel } from './ready-channel';

const fakeChannel = () => ({ channel: new EventEmitter() });

describe('ReadyChannel (fail fast while the broker is away)', () => {
  it('waits for a channel that comes within the deadline', async () => {
    const slot = new ReadyChannel<ReturnType<typeof fakeChannel>>(1000);
    const value = fakeChannel();
    setTimeout(() => slot.ready(value), 50);
    await expect(slot.acquire(Date.now() + 500)).resolves.toBe(value);
  });

  it('gives up at the deadline', async () => {
    const slot = new ReadyChannel(1000);
    const t0 = Date.now();
    await expect(slot.acquire(t0 + 100)).rejects.toBeInstanceOf(BrokerUnavailableError);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(95);
  });

  it('refuses at once after the broker has been away for the whole window', async () => {
    const slot = new ReadyChannel<ReturnType<typeof fakeChannel>>(100);
    const value = fakeChannel();
    slot.ready(value);
    value.channel.emit('close');
    await new Promise((r) => setTimeout(r, 120));
    const t0 = Date.now();
    await expect(slot.acquire(t0 + 5000)).rejects.toBeInstanceOf(BrokerUnavailableError);
    expect(Date.now() - t0).toBeLessThan(20);
  });

  it('refuses everyone once closed', async () => {
    const slot = new ReadyChannel(1000);
    const waiting = slot.acquire(Date.now() + 5000);
    slot.close();
    await expect(waiting).rejects.toThrow(/closed/);
  });
});
