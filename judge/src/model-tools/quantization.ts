// What a graph's quantization is, in the words `convert` and `serve` use, from the ops its nodes use.

/** One node as far as the notes need it: its op, its domain, and its int attributes (MatMulNBits' bits). */
export interface OpUse {
  opType: string;
  domain?: string;
  ints?: Record<string, number>;
}

const DEFAULT_DOMAINS = new Set(['', 'ai.onnx']);
/** An op's name as the notes use it: plain for the default domain, `domain.op` otherwise. */
const opKey = (op: OpUse): string => (DEFAULT_DOMAINS.has(op.domain ?? '') ? op.opType : `${op.domain}.${op.opType}`);
/** int8 dynamic quantization's ops: one activation scale per run over the whole batch. */
const BATCH_DEPENDENT_OPS = ['MatMulInteger', 'DynamicQuantizeLinear', 'com.microsoft.DynamicQuantizeMatMul'];

/**
 * Notes on the quantized weights a graph holds, e.g. "int4 MatMulNBits weights (ONNX Runtime contrib op, kept)";
 * none for a float graph. `others`: also name every other contrib op (for `convert`, which keeps them).
 */
export function quantizationNotes(ops: Iterable<OpUse>, others = false): string[] {
  const seen = new Map<string, OpUse[]>();
  for (const op of ops) {
    const key = opKey(op);
    const uses = seen.get(key);
    if (uses) uses.push(op);
    else seen.set(key, [op]);
  }
  const notes: string[] = [];
  const nbits = seen.get('com.microsoft.MatMulNBits');
  if (nbits) {
    const bits = [...new Set(nbits.map((n) => n.ints?.bits ?? 4))].sort().join('/');
    notes.push(`int${bits} MatMulNBits weights (ONNX Runtime contrib op, kept)`);
  }
  if (seen.has('com.microsoft.GatherBlockQuantized'))
    notes.push('blockwise-quantized embeddings: GatherBlockQuantized (ONNX Runtime contrib op, kept)');
  if (BATCH_DEPENDENT_OPS.some((key) => seen.has(key)))
    notes.push(
      'int8 dynamic quantization (DynamicQuantizeLinear → MatMulInteger): activations are quantized per run with one scale over the whole batch, so scores shift slightly with what is batched together',
    );
  else if (seen.has('QuantizeLinear') && seen.has('DequantizeLinear'))
    notes.push('int8 QDQ quantization: QuantizeLinear/DequantizeLinear around the MatMuls (fixed scales)');
  else if (seen.has('DequantizeLinear')) notes.push('quantized weights read through DequantizeLinear');
  if (others) {
    const known = new Set(['com.microsoft.MatMulNBits', 'com.microsoft.GatherBlockQuantized']);
    const rest = [...seen.keys()].filter((k) => k.includes('.') && !known.has(k)); // ops of another domain
    if (rest.length) notes.push(`contrib ops kept as they are: ${rest.join(', ')}`);
  }
  return notes;
}

/**
 * Whether a graph's scores depend on what is batched with them: int8 dynamic quantization takes one activation scale
 * over the whole batch (DynamicQuantizeLinear), so the same question scores a little differently beside others.
 */
export function batchDependentOps(ops: Iterable<OpUse>): boolean {
  for (const op of ops) if (BATCH_DEPENDENT_OPS.includes(opKey(op))) return true;
  return false;
}

/** The same from a decoded node list (as `convert` has it). */
export function opUses(
  nodes: Iterable<{ opType: string; domain?: string; attributes: { name: string; i?: bigint }[] }>,
): OpUse[] {
  return [...nodes].map((n) => ({
    opType: n.opType,
    domain: n.domain,
    ints: Object.fromEntries(n.attributes.filter((a) => a.i !== undefined).map((a) => [a.name, Number(a.i)])),
  }));
}
