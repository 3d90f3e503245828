/** Where a refused value stood in the request. */
export type ParamLocation = 'path' | 'query' | 'header' | 'body';

/**
 * A request value the sandbox refuses. Answered 400 with a JSON body naming the
 * value (see invalid-param.filter.ts); the request is not recorded as received.
 */
export class InvalidParam extends Error {
  constructor(
    readonly param: string,
    readonly location: ParamLocation,
    message: string,
  ) {
    super(message);
  }
}
