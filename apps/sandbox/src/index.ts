export { createSandboxApp, RunningSandbox, SandboxAppOptions } from './sandbox-app';
export { sandboxModule } from './sandbox.module';
export type { SandboxOptions } from './shared/sandbox-options';
export * from './partners/partner-protocol';
