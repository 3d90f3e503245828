/** One command's reply in an ioredis pipeline's `exec()` result: [error, value]. */
export type PipelineReply = [Error | null, unknown];

/** Decodes the reply of a command queued on a pipeline, once the pipeline has run. */
export type Queued<T> = (reply: PipelineReply) => T;

/** The value of a pipelined command's reply; its error thrown. */
export function pipelineReply<T>([error, value]: PipelineReply): T {
  if (error) throw error;
  return value as T;
}
