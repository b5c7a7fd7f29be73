// Packing question rows: when the graph allows it (own_attention_bias + logits_indices), short questions share a
// batch row instead of each padding its own row to the longest. First-fit decreasing into rows of the width that
// needs the fewest token slots; each question keeps its own positions and attends only to itself and the state.

/** Where one question sits in the batch: its row and its first and last column of the padded width. */
export interface Place {
  row: number;
  start: number;
  end: number;
}

export interface QuestionBatch {
  rows: number[][];
  /** Per row, the lengths of the questions in it, in order. */
  packed: number[][];
  /** Per question (in the caller's order). */
  places: Place[];
  width: number;
}

/** First-fit decreasing of the questions into rows of `width` tokens: the questions of each row. */
function firstFitDecreasing(suffixes: readonly (readonly number[])[], width: number): number[][] {
  const members: number[][] = [];
  const free: number[] = [];
  const order = suffixes.map((_, q) => q).sort((a, b) => suffixes[b].length - suffixes[a].length || a - b);
  for (const q of order) {
    const length = suffixes[q].length;
    const row = free.findIndex((room) => room >= length);
    if (row >= 0) {
      members[row].push(q);
      free[row] -= length;
    } else {
      members.push([q]);
      free.push(width - length);
    }
  }
  return members;
}

/**
 * The questions in batch rows. Packed: the row width, from the longest question up to twice that, that needs the
 * fewest token slots (rows × width; the narrower on a tie), so that a few long questions do not leave every other
 * row half empty. Not packed: one question per row.
 */
export function batchQuestions(suffixes: readonly (readonly number[])[], pack: boolean): QuestionBatch {
  const longest = Math.max(...suffixes.map((s) => s.length));
  let width = longest;
  let members = suffixes.map((_, q) => [q]);
  if (pack) {
    const total = suffixes.reduce((sum, s) => sum + s.length, 0);
    members = firstFitDecreasing(suffixes, longest);
    for (let w = longest + 1; w <= Math.min(2 * longest, total); w++) {
      const rows = Math.ceil(total / w);
      if (rows * w >= members.length * width) continue; // cannot beat the best even perfectly packed
      const candidate = firstFitDecreasing(suffixes, w);
      if (candidate.length * w < members.length * width) [members, width] = [candidate, w];
    }
  }
  const places: Place[] = new Array(suffixes.length);
  const rows = members.map((qs, row) => {
    const tokens = qs.flatMap((q) => [...suffixes[q]]);
    let column = width - tokens.length;
    for (const q of qs) {
      places[q] = { row, start: column, end: column + suffixes[q].length - 1 };
      column += suffixes[q].length;
    }
    return tokens;
  });
  return { rows, packed: members.map((qs) => qs.map((q) => suffixes[q].length)), places, width };
}
