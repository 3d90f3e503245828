import { presentedKeys } from './api-key.guard';

describe('presentedKeys', () => {
  it.each([
    [[], { keys: [], sent: false }],
    [['Authorization', 'Bearer k1'], { keys: ['k1'], sent: true }],
    [['x-api-key', ' k1 '], { keys: ['k1'], sent: true }],
    [['Authorization', 'Basic abc', 'X-API-Key', 'k1'], { keys: ['k1'], sent: true }],
    [['Authorization', 'Bearer'], { keys: [], sent: true }],
    [['X-API-Key', ' '], { keys: [], sent: true }],
    // The same key twice is one key; two different keys are two (Node would have kept only the first Authorization).
    [['Authorization', 'Bearer k1', 'X-API-Key', 'k1'], { keys: ['k1'], sent: true }],
    [['Authorization', 'Bearer k1', 'Authorization', 'Bearer k2'], { keys: ['k1', 'k2'], sent: true }],
    [['X-API-Key', 'k1', 'x-api-key', 'k2'], { keys: ['k1', 'k2'], sent: true }],
  ])('%j', (raw, expected) => expect(presentedKeys(raw)).toEqual(expected));
});
