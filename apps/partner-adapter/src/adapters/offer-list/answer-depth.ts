import { PartnerProtocolError } from '../partner-errors';

/** How deeply a partner's answer may nest. The mappings read paths of at most 10 parts, and lists in lists 3 deep. */
export const MAX_ANSWER_DEPTH = 32;

interface Node {
  value: unknown;
  depth: number;
  parent: Node | null;
  key: string | number;
}

/**
 * Refuses an answer nested deeper than MAX_ANSWER_DEPTH, naming where. JSON.parse
 * takes any depth (1 MB of `[` parses), but JSON.stringify and every recursive
 * walk (a logger's, a serializer's) overflow the stack on such a value, so it
 * goes no further than here. Iterative, so the check itself cannot overflow;
 * the path is only built for the error.
 */
export function checkDepth(body: unknown): void {
  const stack: Node[] = [{ value: body, depth: 0, parent: null, key: '' }];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    const { value, depth } = node;
    if (typeof value !== 'object' || value === null) continue;
    if (depth >= MAX_ANSWER_DEPTH)
      throw new PartnerProtocolError(`the answer is nested deeper than ${MAX_ANSWER_DEPTH} levels at ${pathOf(node)}`);
    if (Array.isArray(value)) value.forEach((v, i) => stack.push({ value: v, depth: depth + 1, parent: node!, key: i }));
    else for (const [k, v] of Object.entries(value)) stack.push({ value: v, depth: depth + 1, parent: node, key: k });
  }
}

/** `Data.Matches[0].x`, cut to 200 characters (the keys are the partner's). */
function pathOf(node: Node): string {
  const keys: Array<string | number> = [];
  for (let n: Node | null = node; n?.parent; n = n.parent) keys.unshift(n.key);
  const path = keys.map((k, i) => (typeof k === 'number' ? `[${k}]` : i === 0 ? k : `.${k}`)).join('');
  return path.length > 200 ? `${path.slice(0, 200)}…` : path;
}
