import { Controller, Get } from '@nestjs/common';

/** `GET /`: what the sandbox offers, for someone trying it with curl. */
@Controller()
export class IndexController {
  @Get()
  index() {
    return {
      name: 'lead-router sandbox',
      docs: 'docs/sandbox.md',
      routes: [
        'POST /schools/<name>/leads?outcome=accept|reject|duplicate|error|timeout&delay_ms=<n>&reason=<text>',
        'GET|DELETE /schools/<name>/received',
        'POST /partners/<name>/search?outcome=…&delay_ms=<n>&match=all|none|some',
        'POST /partners/<name>/submit?outcome=…&delay_ms=<n>&reason=<text>',
        'GET|DELETE /partners/<name>/received',
        'POST /exchange/<name>/v2/match?outcome=…&delay_ms=<n>&match=all|none|some (header X-Api-Key: sandbox-key-<name>)',
        'POST /exchange/<name>/v2/applications?outcome=…&delay_ms=<n>&reason=<text> (header X-Api-Key: sandbox-key-<name>)',
        'GET|DELETE /exchange/<name>/received',
        'GET|DELETE /received',
        'GET /health/live',
        'GET /health/ready',
        'GET /metrics',
      ],
    };
  }
}
