// Packing question rows: when the graph allows it (own_attention_bias + logits_indices), short questions share a
// batch row instead of each padding its own row to the longest. First-fit decreasing into rows as wide as the
// longest question, so packing never widens the batch; each question keeps its own positions and attends only to
// itself and the state.

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

export function batchQuestions(suffixes: readonly (readonly number[])[], pack: boolean): QuestionBatch {
  const width = Math.max(...suffixes.map((s) => s.length));
  const members: number[][] = [];
  if (!pack) suffixes.forEach((_, q) => members.push([q]));
  else {
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
