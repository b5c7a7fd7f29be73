// The node's outputs follow its parameters: pass-through → Success/Error; routing by a choice question →
// one output per option; routing by a yes/no threshold → True/False; otherwise one output.

export type JudgeMode = 'judge' | 'passThrough';
export type RouteBy = 'none' | 'choice' | 'noul';

export interface OutputParameters {
  mode?: JudgeMode;
  routeBy?: RouteBy;
  routeQuestion?: string;
  questions?: { question?: Array<{ name?: string; type?: string; options?: { option?: Array<{ label?: string }> } }> };
}

export interface OutputDescription {
  type: 'main';
  displayName: string;
}

/**
 * Must stay self-contained: n8n evaluates its source text (`outputs: ={{(fn)($parameter)}}`) in the editor
 * and the backend, so it may not call anything outside itself.
 */
export function configureOutputs(parameters: OutputParameters): OutputDescription[] {
  const main = (displayName: string): OutputDescription => ({ type: 'main', displayName });
  if (parameters.mode === 'passThrough') return [main('Success'), main('Error')];
  if (parameters.routeBy === 'noul') return [main('True'), main('False')];
  if (parameters.routeBy === 'choice') {
    const questions = (parameters.questions && parameters.questions.question) || [];
    const routed = questions.find((question) => question.name === parameters.routeQuestion);
    const labels = ((routed && routed.options && routed.options.option) || []).map((option) => option.label || '');
    if (labels.length > 0) return labels.map((label) => main(label));
  }
  return [main('')];
}
