// Safety: what code decides about text from outside, and about tool calls that need a yes first.
export * from './untrusted';
export {
  approvalMarker,
  decideToolApproval,
  rememberTurnLinks,
  settleToolApproval,
  type ApprovalDecision,
} from './tool-approval';
