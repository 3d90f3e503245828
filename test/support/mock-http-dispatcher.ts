import { getGlobalDispatcher, MockAgent, setGlobalDispatcher, type Dispatcher } from 'undici';

/**
 * For tests of code that calls postJsonAnswer: undici's MockAgent as the
 * global dispatcher (request() uses it), no real connection allowed. Plain
 * code, no test framework: call it before each test and `restore()` after,
 * which puts the previous dispatcher back and closes the mock.
 */
export function mockHttpDispatcher(opts: { callHistory?: boolean } = {}): { agent: MockAgent; restore(): Promise<void> } {
  const original: Dispatcher = getGlobalDispatcher();
  const agent = new MockAgent({ enableCallHistory: opts.callHistory ?? true });
  agent.disableNetConnect();
  setGlobalDispatcher(agent);
  return {
    agent,
    async restore() {
      setGlobalDispatcher(original);
      await agent.close();
    },
  };
}
