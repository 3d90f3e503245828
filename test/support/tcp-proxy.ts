// The proxy lives in bench/support (the build includes bench/, not test/), so the fault run uses it too.
export { TcpProxy } from '../../bench/support/tcp-proxy';
