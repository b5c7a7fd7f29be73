// Safety: what code decides about text from outside, and about tool calls that need a yes first.
export * from './untrusted';
export {
  APPROVAL_JUDGE_QUESTION,
  approvalMarker,
  decideToolApproval,
  rememberTurnLinks,
  settleToolApproval,
  weighToolApproval,
  type ApprovalDecision,
  type JudgeVerdict,
} from './tool-approval';
